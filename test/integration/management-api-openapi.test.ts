import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer, ApiTokens } from '@hookstream/api';
import { CE_HEADER } from '@hookstream/contracts';
import { createKafka } from '@hookstream/kafka';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import { PortalStore, storeMessageIndex } from '@hookstream/portal-store';
import { PullHost, PusherResources } from '@hookstream/pusher-core';
import { consoleReporter, ensureOpenApiTools, loadStackConfig, type OpenApiTools } from '@hookstream/stack';
import { LiveCatalog, parseSecretsKey, SubscriberCatalog } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { endpoints } from '../support/stack.ts';

// Issue 27: the management API's OpenAPI document passes an independent validator
// (openapi-spec-validator), and Schemathesis, with every check on and bounded in time, finds no
// 5xx and no answer that the document does not describe. The API runs in this process against
// the real stack; Schemathesis calls it as a tenant of this run only, so whatever it creates is
// this tenant's, and is deleted at the end.

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-management-openapi', quiet: true });
const tenant = uniqueName('fuzz');
const tenantToken = randomBytes(18).toString('base64url');
/** The API's catalog, as `hookstream api` keeps it: followed, started before the server. */
const live = new LiveCatalog(kafka, () => undefined);
const eventsTopic = uniqueName('mapi-fuzz-events');
/** Pull subscribers the run creates are served, as `hookstream api` serves them. */
let resources: Promise<PusherResources> | null = null;
const pull = new PullHost({
  resources: () => {
    resources ??= PusherResources.open({
      kafka: endpoints.kafka,
      registry: endpoints.registrySettings,
      clientId: 'test-management-openapi-pull',
      log: () => undefined,
    });
    return resources;
  },
  eventsTopic,
  log: () => undefined,
  records: async () => (await live.read()).subscribers,
});
/** The portal's message index, as `hookstream api` keeps one (empty here: nothing indexes into it). */
const store = new PortalStore({
  path: join(mkdtempSync(join(tmpdir(), 'mapi-fuzz-index-')), 'index.sqlite'),
});
const service = new ManagementService(
  kafkaPorts({
    kafka,
    catalog: live,
    eventsTopic,
    pull,
    messages: storeMessageIndex(store),
    secretsKey: parseSecretsKey(randomBytes(32).toString('base64'), 'the test key'),
    openPublisher: async () => {
      throw new Error('no subscriber here is disabled: no notice is due');
    },
  }),
);
/** A pull subscriber of the tenant, with events waiting: the pull routes are fuzzed against it. */
const pulled = uniqueName('fuzz-pull');
const fx = new KafkaFixture();
const factory = new EventFactory();
let server: ApiServer;
/** Every request the API answered: path and status, from its request log. */
const answered: { path: string; status: number }[] = [];
let base = '';
let tools: OpenApiTools;

beforeAll(async () => {
  tools = await ensureOpenApiTools(loadStackConfig(), consoleReporter);
  await live.start();
  await live.admin.ensureTopics([{ topic: eventsTopic, partitions: 1, replicationFactor: 1 }]);
  await fx.connect();
  await factory.init();
  const tenantCaller = { scope: { kind: 'tenant', tenant }, id: 'test' } as const;
  await service.putSubscriber(tenantCaller, pulled, { mode: 'pull', start: 'earliest' });
  const messages = await Promise.all(
    Array.from({ length: 50 }, async () => {
      const message = await factory.message(factory.event());
      message.headers[CE_HEADER.tenant] = tenant;
      return message;
    }),
  );
  await fx.producer.send({ topic: eventsTopic, acks: -1, messages });
  server = new ApiServer({
    service,
    tokens: ApiTokens.parse([`${tenantToken}@${tenant}`]),
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: 1000,
    log: (_level, message, fields) => {
      if (message === 'request') answered.push({ path: String(fields.path), status: Number(fields.status) });
    },
  });
  base = await server.start();
}, 5 * 60_000);

afterAll(async () => {
  const catalog = new SubscriberCatalog(kafka);
  for (const [name, record] of (await catalog.read()).subscribers)
    if (record.definition.tenant === tenant)
      await service
        .deleteSubscriber({ scope: { kind: 'operator' }, id: 'test' }, name, { purge: false })
        .catch(() => undefined);
  await pull.stop();
  await (await resources)?.close();
  await server?.close();
  await live.stop();
  await fx.close();
  store.close();
}, 120_000);

describe('the management API against its OpenAPI document', () => {
  it('the document passes openapi-spec-validator', async () => {
    const document = await (await fetch(`${base}/v1/openapi.json`)).text();
    const path = join(tmpdir(), `${uniqueName('hookstream-openapi')}.json`);
    await writeFile(path, document);
    const run = await tools.validate(path);
    expect(run.ok, run.output).toBe(true);
  }, 60_000);

  it('Schemathesis, every check on: no 5xx, every answer as the document says', async () => {
    const run = await tools.fuzz({
      schemaUrl: `${base}/v1/openapi.json`,
      baseUrl: base,
      headers: { Authorization: `Bearer ${tenantToken}` },
      maxExamples: 10,
      maxTimeSeconds: 90,
      // A stale If-Match is the API's 412 to a request the document allows.
      acceptedStatuses: [412],
      // The pull routes meet a pull subscriber with events, not a made-up name (404). A lease
      // waits 0 s: a long poll of up to 30 s per example would spend the run's time waiting.
      operations: [
        {
          includePathRegex: '/(events|ack|nack)$',
          parameters: { 'path.name': pulled, 'query.wait': 0 },
        },
        // A definition's rules across fields (a url unless "mode" is "pull", push-only fields,
        // what only the operator may set, as this tenant is not) are more than JSON Schema says:
        // a PUT may answer 422 with details naming each field. Every other check still holds.
        { includePathRegex: '^/v1/subscribers/[{]name[}]$', includeMethod: 'PUT', acceptedStatuses: [422] },
      ],
    });
    expect(run.ok, run.output).toBe(true);
    // The pull routes' logic was reached: leases granted, acks and nacks judged, not only 404s.
    const reached = (route: string) =>
      answered.filter((a) => a.path === `/v1/subscribers/${pulled}/${route}` && a.status !== 404).length;
    expect({ events: reached('events') > 0, ack: reached('ack') > 0, nack: reached('nack') > 0 }).toEqual({
      events: true,
      ack: true,
      nack: true,
    });
  }, 300_000);
});
