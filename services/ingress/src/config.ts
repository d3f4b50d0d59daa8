import { readFileSync } from 'node:fs';
import {
  ConnectionEnv,
  type ConnectionSettings,
  connectionSettingsOf,
  DEFAULT_EVENTS_TOPIC,
  HookstreamError,
} from '@hookstream/contracts';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
/** An integer setting within [min, max]: every number read from outside is bounded. */
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const DAY_MS = 24 * 3600 * 1000;
const flag = z.enum(['1', '0', 'true', 'false', '']).transform((v) => v === '1' || v === 'true');

/** The ingress's environment, parsed once at boot. Every setting has a default except tokens. */
export const IngressEnv = ConnectionEnv.extend({
  INGRESS_HOST: z.string().min(1).default('127.0.0.1'),
  INGRESS_PORT: port.default(8080),
  /** `token[=type|type][@tenant]`, comma-separated. */
  INGRESS_TOKENS: z.string().default(''),
  /** A file with one `token[=type|type][@tenant]` per line (`#` comments); added to INGRESS_TOKENS. */
  INGRESS_TOKENS_FILE: z.string().min(1).optional(),
  /** Local demo only: with no tokens configured, accept requests without a token. */
  INGRESS_DEMO: flag.default(false),
  INGRESS_TOPIC: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,249}$/)
    .default(DEFAULT_EVENTS_TOPIC),
  INGRESS_TOPIC_PARTITIONS: int(1, 10_000).default(6),
  INGRESS_TOPIC_REPLICATION: int(1, 32).default(1),
  /** 7 days: bounds how long a subscriber may pause and how far back a new one can start. */
  INGRESS_TOPIC_RETENTION_MS: int(3600 * 1000, 3650 * DAY_MS).default(7 * DAY_MS),
  INGRESS_MAX_BODY_BYTES: int(1024, 16 * 1024 * 1024).default(256 * 1024),
  INGRESS_ACK_TIMEOUT_MS: int(100, 120_000).default(5000),
  /** 0 turns duplicate detection off. */
  INGRESS_DEDUP_WINDOW_MS: int(0, DAY_MS).default(10 * 60_000),
  INGRESS_DEDUP_MAX_ENTRIES: int(1, 10_000_000).default(100_000),
  INGRESS_RETRY_AFTER_S: int(1, 3600).default(2),
  /** Records / bytes awaiting Kafka's acks at once; beyond them 503 queue_full. */
  INGRESS_QUEUE_MAX_RECORDS: int(1, 1_000_000).default(10_000),
  INGRESS_QUEUE_MAX_BYTES: int(64 * 1024, 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  /** Where GET /metrics is served (its own listener); unset: not served. */
  INGRESS_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  INGRESS_METRICS_PORT: port.optional(),
  /** A client must send its headers, and its whole request, within these (slow clients are cut). */
  INGRESS_HEADERS_TIMEOUT_MS: int(1000, 120_000).default(10_000),
  INGRESS_REQUEST_TIMEOUT_MS: int(1000, 600_000).default(30_000),
  INGRESS_KEEP_ALIVE_TIMEOUT_MS: int(1000, 600_000).default(5000),
  /** Open connections at once; more are closed as they arrive. */
  INGRESS_MAX_CONNECTIONS: int(1, 100_000).default(1024),
  /** Requests per second per token (0: no limit); beyond them 429 with Retry-After. */
  INGRESS_RATE_LIMIT_PER_S: int(0, 100_000).default(0),
  /** Requests a token may send at once after a quiet spell (default: one second's worth). */
  INGRESS_RATE_LIMIT_BURST: int(1, 1_000_000).optional(),
  INGRESS_SOURCE: z.string().min(1).default('/ingress'),
  INGRESS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type IngressEnv = z.infer<typeof IngressEnv>;

export interface IngressConfig {
  readonly host: string;
  readonly port: number;
  /** Token entries as written (INGRESS_TOKENS then the file), checked against the schemas later. */
  readonly tokenEntries: readonly string[];
  readonly demo: boolean;
  readonly topic: string;
  readonly topicPartitions: number;
  readonly topicReplication: number;
  readonly topicRetentionMs: number;
  readonly maxBodyBytes: number;
  readonly ackTimeoutMs: number;
  readonly dedupWindowMs: number;
  readonly dedupMaxEntries: number;
  readonly retryAfterS: number;
  readonly queueMaxRecords: number;
  readonly queueMaxBytes: number;
  /** null: /metrics is not served. */
  readonly metrics: { readonly host: string; readonly port: number } | null;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  /** null: no per-token rate limit. */
  readonly rateLimit: { readonly perSecond: number; readonly burst: number } | null;
  readonly source: string;
  readonly logLevel: IngressEnv['INGRESS_LOG_LEVEL'];
  /** Kafka (brokers, TLS, SASL), the registry and its credentials: the shared connection schema. */
  readonly connection: ConnectionSettings;
}

/** A setting that stops the ingress from starting; the message names the variable. */
export class IngressConfigError extends HookstreamError<'BAD_CONFIG'> {
  constructor(message: string) {
    super('BAD_CONFIG', message, false);
  }
}

export function loadIngressConfig(env: NodeJS.ProcessEnv, overrides: { port?: number } = {}): IngressConfig {
  const parsed = IngressEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new IngressConfigError(`${issue?.path.join('.')}: ${issue?.message}`);
  }
  const e = parsed.data;
  const tokenEntries = e.INGRESS_TOKENS.split(',').filter((t) => t.trim() !== '');
  if (e.INGRESS_TOKENS_FILE !== undefined) {
    try {
      tokenEntries.push(...readFileSync(e.INGRESS_TOKENS_FILE, 'utf8').split('\n'));
    } catch (err) {
      throw new IngressConfigError(
        `INGRESS_TOKENS_FILE: cannot read ${e.INGRESS_TOKENS_FILE}: ${(err as Error).message}`,
      );
    }
  }
  const hasTokens = tokenEntries.some((t) => t.trim() !== '' && !t.trim().startsWith('#'));
  if (!hasTokens && !e.INGRESS_DEMO) {
    throw new IngressConfigError(
      'INGRESS_TOKENS: no bearer tokens configured (set INGRESS_TOKENS or INGRESS_TOKENS_FILE; ' +
        'INGRESS_DEMO=1 accepts unauthenticated requests for a local demo)',
    );
  }
  const demo = e.INGRESS_DEMO && !hasTokens;
  if (demo && !isLoopback(e.INGRESS_HOST)) {
    throw new IngressConfigError(
      `INGRESS_HOST: demo mode (INGRESS_DEMO=1 without tokens) accepts anyone, so it listens on loopback only, not '${e.INGRESS_HOST}'`,
    );
  }
  if (e.INGRESS_HEADERS_TIMEOUT_MS >= e.INGRESS_REQUEST_TIMEOUT_MS) {
    throw new IngressConfigError(
      'INGRESS_HEADERS_TIMEOUT_MS: must be less than INGRESS_REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  let connection: ConnectionSettings;
  try {
    connection = connectionSettingsOf(e);
  } catch (err) {
    throw new IngressConfigError((err as Error).message);
  }
  return {
    host: e.INGRESS_HOST,
    port: overrides.port ?? e.INGRESS_PORT,
    tokenEntries,
    demo,
    topic: e.INGRESS_TOPIC,
    topicPartitions: e.INGRESS_TOPIC_PARTITIONS,
    topicReplication: e.INGRESS_TOPIC_REPLICATION,
    topicRetentionMs: e.INGRESS_TOPIC_RETENTION_MS,
    maxBodyBytes: e.INGRESS_MAX_BODY_BYTES,
    ackTimeoutMs: e.INGRESS_ACK_TIMEOUT_MS,
    dedupWindowMs: e.INGRESS_DEDUP_WINDOW_MS,
    dedupMaxEntries: e.INGRESS_DEDUP_MAX_ENTRIES,
    retryAfterS: e.INGRESS_RETRY_AFTER_S,
    queueMaxRecords: e.INGRESS_QUEUE_MAX_RECORDS,
    queueMaxBytes: e.INGRESS_QUEUE_MAX_BYTES,
    metrics:
      e.INGRESS_METRICS_PORT === undefined
        ? null
        : { host: e.INGRESS_METRICS_HOST, port: e.INGRESS_METRICS_PORT },
    headersTimeoutMs: e.INGRESS_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.INGRESS_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.INGRESS_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: e.INGRESS_MAX_CONNECTIONS,
    rateLimit:
      e.INGRESS_RATE_LIMIT_PER_S === 0
        ? null
        : {
            perSecond: e.INGRESS_RATE_LIMIT_PER_S,
            burst: e.INGRESS_RATE_LIMIT_BURST ?? e.INGRESS_RATE_LIMIT_PER_S,
          },
    source: e.INGRESS_SOURCE,
    logLevel: e.INGRESS_LOG_LEVEL,
    connection,
  };
}

/** 127.0.0.0/8, ::1 or localhost: reachable from this host only. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
