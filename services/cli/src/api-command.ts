import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiServer, ApiTokens, DEFAULT_API_RATE } from '@hookstream/api';
import { PayloadMode } from '@hookstream/api-schemas';
import {
  DEFAULT_EVENTS_TOPIC,
  describeErrorChain,
  EventsTopicName,
  HookstreamError,
} from '@hookstream/contracts';
import {
  DEFAULT_PAYLOAD_MODE,
  DEFAULT_TENANT_MAX_SUBSCRIBERS,
  kafkaPorts,
  ManagementService,
  parseTenantQuotaList,
  TenantQuotas,
} from '@hookstream/management';
import { RegistryHttp } from '@hookstream/producer';
import { AvroEventDecoder, PullHost, PusherResources, RegistrySchemaSource } from '@hookstream/pusher-core';
import { LiveCatalog, loadSecretsKey } from '@hookstream/subscribers';
import { createLogger, serveMetrics, startMetrics, startTracing } from '@hookstream/telemetry';
import { z } from 'zod';
import { openMessageIndex, openPortalLinks, openPortalPages } from './api-portal.ts';
import { lazyExampleEncoder } from './example-encoder.ts';
import { toolKafka } from './kafka-client.ts';
import { openNoticePublisher } from './notice-publisher.ts';
import { runtimeConnection } from './runtime-endpoints.ts';
import { reportToolError } from './tool-errors.ts';

export const API_USAGE = `Usage: hookstream api [--port <n>] [--host <address>] [--rate <n>] [--topic <events topic>] [--secrets-key-file <path>] [--session-timeout <ms>] [--max-subscribers <n>] [--tenant-quotas <list>]

The management API (docs/api.md): subscribers (list, read, create or replace, delete, pause,
resume, rotate a managed secret), dead letters and their replay as jobs, an event's ledger, the
event catalogue and the audit trail, as JSON under /v1, described by GET /v1/openapi.json. It
also serves pull subscribers' leases (GET …/events, POST …/ack and …/nack): it joins their
groups as it is asked, so it needs the pusher's Kafka rights for them (docs/security.md).

Tokens: HOOKSTREAM_API_TOKENS (comma-separated) and HOOKSTREAM_API_TOKENS_FILE (one per line,
# comments), each token=* (the operator: everything) or token@tenant (that tenant's subscribers
only), at least 16 characters. Kafka and the registry: the same variables as every tool.

Options:
  --port <n>               port to listen on (default 8070; 0 picks a free one)
  --host <address>         address to bind (default 127.0.0.1)
  --rate <n>               requests per second per token, then 429 (default ${DEFAULT_API_RATE}, or HOOKSTREAM_API_RATE)
  --topic <name>           the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --secrets-key-file <p>   the secrets key for managed secrets (default HOOKSTREAM_SECRETS_KEY)
  --metrics-port <port>    serve GET /metrics (Prometheus text) on 127.0.0.1:<port>: the pull
                           subscribers served here, as a pusher's (or HOOKSTREAM_API_METRICS_PORT)
  --session-timeout <ms>   how long a pull subscriber's group waits for this process once it went
                           silent (killed, frozen), 6000-300000 (default 30000, or
                           HOOKSTREAM_SESSION_TIMEOUT_MS, as for hookstream push)
  --max-subscribers <n>    how many subscribers a tenant token may create, 0-100000 (default
                           ${DEFAULT_TENANT_MAX_SUBSCRIBERS}, or HOOKSTREAM_API_MAX_SUBSCRIBERS); past it a PUT is 409
                           quota_exceeded. Each subscriber makes at most 22 topics (20 tiers, a
                           DLQ, a replay log), so this bounds a tenant's topics and partitions too
  --tenant-quotas <list>   per-tenant quotas over --max-subscribers, e.g. acme=500,globex=20 (or
                           HOOKSTREAM_API_TENANT_QUOTAS)
  --tenant-private-network let every tenant's subscriber reach private addresses (a platform whose
                           customers share its private network; or HOOKSTREAM_API_TENANT_PRIVATE_NETWORK=true)

The customer portal (docs/portal.md): operator tokens mint links (POST /v1/portal-links) that
open /portal/<link>/ as one tenant. Its message index is a SQLite file kept from the attempt log.
  --public-url <url>       where browsers reach this API: the start of every link (default: the
                           listen address; or HOOKSTREAM_API_PUBLIC_URL)
  --portal-frame-ancestors <origins>  comma-separated origins that may frame the portal (default
                           none: nothing may; or HOOKSTREAM_PORTAL_FRAME_ANCESTORS)
  --portal-store <dir>     the index's directory (default ~/.local/state/hookstream/portal, or
                           HOOKSTREAM_PORTAL_STORE)
  --portal-cache-mb <n>    the index's page cache, its memory bound, 1-4096 MiB (default 64)
  --portal-index-since <d> a new index starts this long ago (30m, 6h, 2d) instead of at the attempt
                           log's start
  --message-payloads <m>   what the portal and GET /v1/messages/{id}/payload show of an event's
                           data: none, digest (its size and SHA-256; the default) or full`;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The command's settings from its flags and environment, parsed once: a bad one names its field. */
const ApiConfig = z.object({
  port: z.coerce.number().int().min(0).max(65_535),
  host: z.string().min(1).max(255),
  rate: z.coerce.number().positive().max(100_000),
  topic: EventsTopicName,
  secretsKeyFile: z.string().min(1).optional(),
  metricsPort: z.coerce.number().int().min(1).max(65_535).optional(),
  // The broker's group.min.session.timeout.ms (6 s) to its usual maximum (5 min), as for push.
  sessionTimeoutMs: z.coerce.number().int().min(6000).max(300_000).optional(),
  tenantQuotas: TenantQuotas,
  tokens: z.string().optional(),
  tokensFile: z.string().min(1).optional(),
  tenantPrivateNetwork: z.boolean(),
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  frameAncestors: z.array(z.url({ protocol: /^https?$/ }).transform((u) => new URL(u).origin)).max(50),
  portalStore: z.string().min(1),
  portalCacheMb: z.coerce.number().int().min(1).max(4096),
  portalIndexSinceMs: z
    .number()
    .int()
    .min(60_000)
    .max(90 * 86_400_000)
    .optional(),
  messagePayloads: PayloadMode,
  logLevel: z.enum(LOG_LEVELS),
});
type ApiConfig = z.infer<typeof ApiConfig>;

function parseConfig(args: readonly string[], env: NodeJS.ProcessEnv): ApiConfig | 'help' {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '8070' },
      host: { type: 'string', default: '127.0.0.1' },
      rate: { type: 'string' },
      topic: { type: 'string' },
      'secrets-key-file': { type: 'string' },
      'metrics-port': { type: 'string' },
      'session-timeout': { type: 'string' },
      'max-subscribers': { type: 'string' },
      'tenant-quotas': { type: 'string' },
      'tenant-private-network': { type: 'boolean', default: false },
      'public-url': { type: 'string' },
      'portal-frame-ancestors': { type: 'string' },
      'portal-store': { type: 'string' },
      'portal-cache-mb': { type: 'string', default: '64' },
      'portal-index-since': { type: 'string' },
      'message-payloads': { type: 'string', default: DEFAULT_PAYLOAD_MODE },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const set = (v: string | undefined) => (v === '' ? undefined : v);
  const result = ApiConfig.safeParse({
    port: values.port,
    host: values.host,
    rate: values.rate ?? set(env.HOOKSTREAM_API_RATE) ?? DEFAULT_API_RATE,
    topic: values.topic ?? set(env.HOOKSTREAM_EVENTS_TOPIC) ?? DEFAULT_EVENTS_TOPIC,
    secretsKeyFile: values['secrets-key-file'],
    metricsPort: values['metrics-port'] ?? set(env.HOOKSTREAM_API_METRICS_PORT),
    sessionTimeoutMs: values['session-timeout'] ?? set(env.HOOKSTREAM_SESSION_TIMEOUT_MS),
    tenantQuotas: tenantQuotasOf(
      values['max-subscribers'] ?? set(env.HOOKSTREAM_API_MAX_SUBSCRIBERS),
      values['tenant-quotas'] ?? set(env.HOOKSTREAM_API_TENANT_QUOTAS),
    ),
    tokens: set(env.HOOKSTREAM_API_TOKENS),
    tokensFile: set(env.HOOKSTREAM_API_TOKENS_FILE),
    tenantPrivateNetwork:
      values['tenant-private-network'] === true || env.HOOKSTREAM_API_TENANT_PRIVATE_NETWORK === 'true',
    publicUrl: values['public-url'] ?? set(env.HOOKSTREAM_API_PUBLIC_URL),
    frameAncestors: listOf(values['portal-frame-ancestors'] ?? set(env.HOOKSTREAM_PORTAL_FRAME_ANCESTORS)),
    portalStore:
      values['portal-store'] ??
      set(env.HOOKSTREAM_PORTAL_STORE) ??
      join(homedir(), '.local/state/hookstream/portal'),
    portalCacheMb: values['portal-cache-mb'],
    portalIndexSinceMs: durationMs(values['portal-index-since']),
    messagePayloads: values['message-payloads'],
    logLevel: set(env.HOOKSTREAM_API_LOG_LEVEL) ?? 'info',
  });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? 'options');
  const names: Record<string, string> = {
    port: '--port',
    host: '--host',
    rate: '--rate / HOOKSTREAM_API_RATE',
    topic: '--topic / HOOKSTREAM_EVENTS_TOPIC',
    metricsPort: '--metrics-port / HOOKSTREAM_API_METRICS_PORT',
    sessionTimeoutMs: '--session-timeout / HOOKSTREAM_SESSION_TIMEOUT_MS',
    logLevel: 'HOOKSTREAM_API_LOG_LEVEL',
    tenantQuotas: '--max-subscribers / HOOKSTREAM_API_MAX_SUBSCRIBERS',
    publicUrl: '--public-url / HOOKSTREAM_API_PUBLIC_URL',
    frameAncestors: '--portal-frame-ancestors / HOOKSTREAM_PORTAL_FRAME_ANCESTORS',
    portalStore: '--portal-store / HOOKSTREAM_PORTAL_STORE',
    portalCacheMb: '--portal-cache-mb',
    portalIndexSinceMs: '--portal-index-since (30m, 6h, 2d: 1 minute to 90 days)',
    messagePayloads: '--message-payloads',
  };
  throw new HookstreamError(
    'BAD_CONFIG',
    `${names[field] ?? field}: ${issue?.message ?? 'bad value'}`,
    false,
  );
}

function listOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
}

/** `30m`, `6h`, `2d` in ms; a value of another form is NaN, which the schema names. */
function durationMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (match === null) return Number.NaN;
  return Number(match[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'm' | 'h' | 'd'];
}

/** The quotas as given; numbers are checked by TenantQuotas, a bad list entry is named here. */
function tenantQuotasOf(max: string | undefined, list: string | undefined): unknown {
  let byTenant: Record<string, number> = {};
  try {
    byTenant = list === undefined ? {} : parseTenantQuotaList(list);
  } catch (err) {
    throw new HookstreamError(
      'BAD_CONFIG',
      `--tenant-quotas / HOOKSTREAM_API_TENANT_QUOTAS: ${(err as Error).message}`,
      false,
    );
  }
  return { maxSubscribers: max === undefined ? DEFAULT_TENANT_MAX_SUBSCRIBERS : Number(max), byTenant };
}

/** The tokens of both variables; the file's lines may hold `#` comments. */
function apiTokens(config: ApiConfig): ApiTokens {
  const entries = config.tokens === undefined ? [] : config.tokens.split(',');
  if (config.tokensFile !== undefined) {
    try {
      entries.push(...readFileSync(config.tokensFile, 'utf8').split('\n'));
    } catch (err) {
      throw new HookstreamError(
        'BAD_CONFIG',
        `HOOKSTREAM_API_TOKENS_FILE: cannot read ${config.tokensFile}: ${(err as Error).message}`,
        false,
      );
    }
  }
  try {
    return ApiTokens.parse(entries);
  } catch (err) {
    throw new HookstreamError('BAD_CONFIG', `HOOKSTREAM_API_TOKENS: ${(err as Error).message}`, false);
  }
}

/** `hookstream api`: serves the management API until SIGINT/SIGTERM. */
export async function apiCommand(args: readonly string[]): Promise<number> {
  try {
    const config = parseConfig(args, process.env);
    if (config === 'help') {
      process.stdout.write(`${API_USAGE}\n`);
      return 0;
    }
    const tokens = apiTokens(config);
    const secretsKey = await loadSecretsKey({ keyFile: config.secretsKeyFile });
    const logger = createLogger({ name: 'hookstream-api', level: config.logLevel });
    // Replays over the API are traced as `dlq replay`'s are.
    const tracing = await startTracing({ serviceName: 'hookstream-replay' });
    // The pull subscribers served here, measured as a pusher measures its subscribers.
    const metrics =
      config.metricsPort === undefined ? undefined : await startMetrics({ serviceName: 'hookstream-api' });
    const metricsServer =
      metrics === undefined || config.metricsPort === undefined
        ? undefined
        : await serveMetrics(metrics, '127.0.0.1', config.metricsPort);
    const kafka = toolKafka('hookstream-api');
    // Followed for the server's life: a read costs an end-offset request, not a topic read.
    const catalog = new LiveCatalog(kafka, (level, message, fields) => logger[level](fields ?? {}, message));
    await catalog.start();
    const log = (
      level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace',
      message: string,
      fields?: Record<string, unknown>,
    ) => logger[level](fields ?? {}, message);
    // Pull subscribers' group members and leases live here, their clients opened at the first pull.
    const opened: { resources: Promise<PusherResources> | null } = { resources: null };
    const pull = new PullHost({
      resources: () => {
        if (opened.resources === null)
          opened.resources = PusherResources.open({
            ...runtimeConnection(),
            clientId: 'hookstream-api-pull',
            log,
            ...(metrics === undefined ? {} : { meter: metrics.meter }),
          });
        const resources = opened.resources;
        // A failed open is not kept: the next pull tries again.
        resources.catch(() => {
          if (opened.resources === resources) opened.resources = null;
        });
        return resources;
      },
      eventsTopic: config.topic,
      log,
      records: async () => (await catalog.read()).subscribers,
      ...(config.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: config.sessionTimeoutMs }),
    });
    const examples = lazyExampleEncoder();
    const portalSettings = {
      storeDir: config.portalStore,
      frameAncestors: config.frameAncestors,
      publicUrl: config.publicUrl,
      indexSinceMs: config.portalIndexSinceMs,
      cacheBytes: config.portalCacheMb * 1024 * 1024,
    };
    const index = openMessageIndex(kafka, portalSettings, log);
    // Notices and `full` payloads are decoded as a pusher decodes events.
    const decoder = new AvroEventDecoder(
      new RegistrySchemaSource(new RegistryHttp(runtimeConnection().registry)),
    );
    const links = await openPortalLinks(kafka, index.store, log);
    // In the background: a new index reads the attempt log's retention; pages show what is in.
    const indexing = index.indexer.start().then(
      () => logger.info(index.indexer.progress(), 'portal index caught up with the attempt log'),
      (err: unknown) => logger.error({ error: describeErrorChain(err) }, 'portal index stopped'),
    );
    try {
      const service = new ManagementService(
        kafkaPorts({
          kafka,
          catalog,
          eventsTopic: config.topic,
          secretsKey,
          tenantQuotas: config.tenantQuotas,
          openPublisher: () => openNoticePublisher('api', config.topic),
          pull,
          examples,
          messages: index.messages,
          payloads: config.messagePayloads,
          decodeEvent: (value, type) => decoder.decode(value, type),
          tenantPolicy: { privateNetwork: config.tenantPrivateNetwork },
        }),
      );
      const pages = openPortalPages({
        kafka,
        links,
        service,
        eventsTopic: config.topic,
        decoder,
        settings: portalSettings,
        log,
      });
      const server = new ApiServer({
        service,
        tokens,
        portal: {
          links: {
            mint: (request, by) => links.book.mint(request, by),
            revoke: (id, by) => links.book.revoke(id, by),
            list: (filter) => links.book.list(filter),
            erase: (tenant, by) => links.erase(tenant, by),
          },
          pages,
          ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
        },
        host: config.host,
        port: config.port,
        ratePerSecond: config.rate,
        log: (level, message, fields) => logger[level](fields, message),
      });
      const url = await server.start();
      logger.info(
        { url, tokenCount: tokens.size, rate: config.rate, eventsTopic: config.topic },
        'listening',
      );
      process.stdout.write(`hookstream api on ${url} (GET ${url}/v1/openapi.json)\n`);
      await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      logger.info('stopping');
      await server.close();
    } finally {
      // Leaving the pull subscribers' groups commits what was acked.
      await pull.stop();
      await examples.close();
      await links.stop();
      await index.indexer.stop();
      await indexing;
      index.store.close();
      await (await opened.resources?.catch(() => null))?.close();
      await metricsServer?.close();
      await metrics?.shutdown();
      await catalog.stop();
      await tracing.shutdown().catch(() => undefined);
    }
    return 0;
  } catch (err) {
    return reportToolError('api', err);
  }
}
