import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer, ApiTokens } from '@hookstream/api';
import {
  ATTEMPT_LOG_TOPIC,
  CE_HEADER,
  componentAcls,
  dlqTopicName,
  loadConnectionSettings,
  noticesTopicName,
  replayLogTopicName,
  replayTransactionalId,
  retryTopicName,
  subscriberGroupId,
} from '@hookstream/contracts';
import {
  createKafka,
  createRawConsumer,
  type KafkaAdmin,
  KafkaSendError,
  RecordSender,
  readTopic,
  TransactionalWriter,
} from '@hookstream/kafka';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import { KafkaPortalLinks } from '@hookstream/portal';
import { AttemptIndexer, PortalStore } from '@hookstream/portal-store';
import { startNoticeProducer } from '@hookstream/producer';
import type { SecureKafka } from '@hookstream/stack';
import { LiveCatalog } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { runCli } from '../support/cli.ts';
import { deadLetterRecord, randomTraceparent } from '../support/dead-letters.ts';
import { post, startTestIngress } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { spawnPusherCli } from '../support/pusher-process.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { SECURE_USERS, secureEnv, startSecureKafka } from '../support/secure-kafka.ts';
import { waitFor } from '../support/wait.ts';

const shipment = { type: 'shipment.updated', data: { shipment: { id: 'shp-sec', status: 'in_transit' } } };

let secure: Awaited<ReturnType<typeof startSecureKafka>>;
let kafka: SecureKafka;
/** Super user on the plaintext listener: creates topics and grants ACLs. */
let setup: KafkaAdmin;
const receivers = new ReceiverPool();
const eventsTopic = uniqueName('secure-events');

beforeAll(async () => {
  secure = await startSecureKafka();
  kafka = secure.kafka;
  setup = createKafka({ brokers: kafka.plaintextBrokers, clientId: 'secure-setup', quiet: true }).admin();
  await setup.connect();
  await setup.ensureTopics([{ topic: eventsTopic, partitions: 3, replicationFactor: 1 }]);
  await setup.grant('User:ingress', componentAcls({ role: 'ingress', eventsTopic }));
  await setup.grant('User:pusher', componentAcls({ role: 'pusher', eventsTopic }));
}, 180_000);

afterAll(async () => {
  await receivers.closeAll();
  await setup?.disconnect();
  await secure?.destroy();
});

/** A component's own connection to the secure listener, as `user`. */
function connectionAs(user: keyof typeof SECURE_USERS, env: Record<string, string> = {}) {
  return createKafka({
    ...loadConnectionSettings({ ...secureEnv(kafka, user), ...env }).kafka,
    clientId: `as-${user}`,
    quiet: true,
  });
}

/** `hookstream push` started with `env`, expected to stop at start-up: its exit code and output. */
async function failedPush(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const name = uniqueName('sec-fail');
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-sec-'));
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ name, url: 'http://127.0.0.1:9/hooks', allowPrivateNetwork: true }));
  const child = spawnCli(['push', '--config', file, '--topic', eventsTopic], { ...process.env, ...env });
  const { code } = await exited(child);
  return { code, output: child.output() };
}

describe('hookstream on a SASL_SSL broker with mTLS and ACLs', () => {
  it('delivers ingress → pusher → receiver with only the documented ACLs', async () => {
    const receiver = await receivers.start();
    const name = uniqueName('sec-sub');
    const pusher = await spawnPusherCli(
      eventsTopic,
      { name, url: `${receiver.url}/hooks`, retry: { delaysMs: [300], maxAttempts: 3 } },
      { env: secureEnv(kafka, 'pusher') },
    );
    const ingress = await startTestIngress(eventsTopic, {
      ...secureEnv(kafka, 'ingress'),
      INGRESS_LOG_LEVEL: 'silent',
    });
    try {
      const answer = await post(`${ingress.url}/v1/events`, shipment);
      expect(answer.status).toBe(202);
      const eventId = (answer.body as { event_id: string }).event_id;
      await waitFor('the event to reach the receiver', async () =>
        receiver.arrivals.some((a) => a.eventId === eventId) ? true : undefined,
      );
    } finally {
      await ingress.close();
      expect(await pusher.stop()).toBe(0);
    }
  });

  it("brings an existing tier's retention to the definition with only the documented ACLs", async () => {
    const name = uniqueName('sec-tiers');
    const tier = retryTopicName(name, 1);
    await setup.ensureTopics([
      {
        topic: tier,
        partitions: 1,
        replicationFactor: 1,
        config: { 'retention.ms': '3600000', 'max.message.bytes': '2000000' },
      },
      { topic: dlqTopicName(name), partitions: 1, replicationFactor: 1 },
    ]);
    const maxAgeMs = 8 * 86_400_000;
    const pusher = await spawnPusherCli(
      eventsTopic,
      { name, url: 'http://127.0.0.1:9/hooks', retry: { delaysMs: [300], maxAgeMs } },
      { env: secureEnv(kafka, 'pusher') },
    );
    // Aligned before the pusher says it started.
    expect((await setup.topicConfig(tier))?.['retention.ms']).toBe(String(maxAgeMs + 300));
    // AlterConfigs replaces a topic's whole set: the tier's other override is kept.
    expect((await setup.topicConfig(tier))?.['max.message.bytes']).toBe('2000000');
    expect(pusher.output()).toContain('retention follows the definition');
    expect(pusher.output()).not.toContain('cannot bring the retry tiers');
    // Not its exit code: `push` logs that it started before it listens for SIGTERM, so a stop
    // this soon may end it by the signal itself.
    await pusher.stop();
  });

  it('delivers a notice under exactly the documented ACLs, once, with two fleet replicas', async () => {
    const prefix = uniqueName('sec-notice');
    const victim = `${prefix}-victim`;
    const ops = `${prefix}-ops`;
    const gone = await receivers.start({ behaviour: { fixedStatus: 410 } });
    const opsHook = await receivers.start();
    // The subscribers tool and the fleets run as the pusher's principal, with its grants only.
    const asPusher = { ...process.env, ...secureEnv(kafka, 'pusher'), HOOKSTREAM_EVENTS_TOPIC: eventsTopic };
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-sec-notice-'));
    const common = { start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 500 } };
    await writeFile(
      join(dir, 'victim.json'),
      JSON.stringify({ ...common, name: victim, url: gone.url, eventTypes: ['shipment.updated'] }),
    );
    await writeFile(join(dir, 'ops.json'), JSON.stringify({ ...common, name: ops, url: opsHook.url }));
    const applied = await runCli(['subscribers', 'apply', dir], asPusher);
    expect(applied.code, applied.stderr).toBe(0);
    const fleets = ['a', 'b'].map((replica) =>
      spawnCli(
        [
          'push',
          '--all',
          '--match',
          `${prefix}-*`,
          '--topic',
          eventsTopic,
          '--instance',
          `${prefix}-${replica}`,
        ],
        asPusher,
      ),
    );
    const ingress = await startTestIngress(eventsTopic, {
      ...secureEnv(kafka, 'ingress'),
      INGRESS_LOG_LEVEL: 'silent',
    });
    const notices = noticesTopicName(eventsTopic);
    /** Waits until the ops hook's group has settled every notice copy on the topic; its notices of this type. */
    const settledNotices = async (type: string) => {
      await waitFor(`the ops hook to settle every ${type} copy`, async () => {
        const end = (await setup.topicOffsets(notices))?.reduce((n, p) => n + Number(p.high), 0) ?? 0;
        const [ledger] = await setup.committedOffsets(subscriberGroupId(ops), notices);
        const received = opsHook.arrivals.some((a) => a.body?.type === type && a.body?.subscriber === victim);
        return received && end > 0 && Number(ledger?.offset ?? -1) === end ? true : undefined;
      });
      return opsHook.arrivals.filter((a) => a.body?.type === type && a.body?.subscriber === victim);
    };
    try {
      await waitFor(
        'both replicas running both subscribers',
        async () => {
          for (const f of fleets)
            if (f.exitCode !== null) throw new Error(`a fleet exited with ${f.exitCode}: ${f.output()}`);
          const started = (f: (typeof fleets)[number], name: string) =>
            f.output().includes(`"subscriber":"${name}"`) && f.output().includes('"msg":"pusher started"');
          return fleets.every((f) => started(f, victim) && started(f, ops)) ? true : undefined;
        },
        { timeoutMs: 90_000 },
      );
      const batch = Array.from({ length: 6 }, (_, i) => ({ ...shipment, key: `shp-${i}` }));
      expect((await post(`${ingress.url}/v1/events/batch`, { events: batch })).status).toBe(202);
      const disabled = await settledNotices('subscriber.disabled');
      expect(disabled).toHaveLength(1);
      expect(disabled[0]?.body).toMatchObject({ cause: 'gone', status: 410, events_topic: eventsTopic });
      const logs = fleets.map((f) => f.output()).join('\n');
      expect(logs).toContain('subscriber disabled; subscriber.disabled published');
      expect(logs).not.toMatch(/could not be published|could not disable/);

      const resumed = await runCli(['subscribers', 'resume', victim, '--by', 'sec-test', '--json'], asPusher);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({
        published: expect.stringMatching(/^subscriber\.enabled:/),
      });
      expect(await settledNotices('subscriber.enabled')).toHaveLength(1);

      // The audit trail, written and read with the same grants: the tool's changes as the OS
      // user, the fleet's auto-disable as the pusher (both replicas may have disabled it at once).
      const audit = await runCli(['audit', '--subscriber', victim, '--json'], asPusher);
      expect(audit.code, audit.stderr).toBe(0);
      const changes = JSON.parse(audit.stdout) as {
        action: string;
        actor: { kind: string; component?: string };
      }[];
      expect(changes[0]).toMatchObject({ action: 'subscriber.created', actor: { kind: 'user' } });
      const disables = changes.filter((c) => c.action === 'subscriber.disabled');
      expect(disables.length).toBeGreaterThanOrEqual(1);
      for (const d of disables) expect(d.actor).toMatchObject({ kind: 'system', component: 'pusher' });
      // The endpoint still answers 410, so the fleet may disable it again after the resume.
      const resumedAt = changes.findIndex((c) => c.action === 'subscriber.resumed');
      expect(changes[resumedAt]).toMatchObject({ actor: { kind: 'user' } });
      expect(resumedAt).toBeGreaterThan(changes.findIndex((c) => c.action === 'subscriber.disabled'));
      expect(fleets.map((f) => f.output()).join('\n')).not.toContain('audit record could not be written');

      // The retention headroom reads the events topic's settings (DESCRIBE_CONFIGS) and the
      // records at the ledgers, with the same grants, in the tool and in the fleets.
      const listed = await runCli(['subscribers', 'list', '--json'], asPusher);
      expect(listed.code, listed.stderr).toBe(0);
      const overview = JSON.parse(listed.stdout) as {
        retentionHeadroomError?: string;
        subscribers: { name: string; retentionHeadroomSeconds: unknown }[];
      };
      expect(overview.retentionHeadroomError).toBeUndefined();
      expect(overview.subscribers.find((r) => r.name === ops)?.retentionHeadroomSeconds).toEqual(
        expect.any(Number),
      );
      expect(fleets.map((f) => f.output()).join('\n')).not.toContain('cannot read the retention headroom');
    } finally {
      await ingress.close();
      for (const f of fleets) f.kill('SIGTERM');
      await Promise.all(fleets.map((f) => exited(f)));
    }
  }, 180_000);

  it('keeps the ingress out of a DLQ and a pusher out of the events topic', async () => {
    const dlq = dlqTopicName(uniqueName('sec-dlq'));
    await setup.ensureTopics([{ topic: dlq, partitions: 1, replicationFactor: 1 }]);
    const asIngress = connectionAs('ingress');
    // Hidden from the ingress's principal: the tools' reader sees no such topic,
    await expect(readTopic(asIngress, { topic: dlq, purpose: 'security-test' })).rejects.toThrow(
      /does not exist/,
    );
    // and a consumer naming it outright is refused by the authorizer.
    const consumer = createRawConsumer(asIngress, { groupId: uniqueName('hookstream.tool.sec') });
    await consumer.connect();
    try {
      await expect(consumer.subscribe([dlq], { fromBeginning: true })).rejects.toMatchObject({
        type: 'TOPIC_AUTHORIZATION_FAILED',
      });
    } finally {
      await consumer.disconnect();
    }
    // Nor may the ingress's principal write the notices topic: a notice comes from hookstream only.
    const asIngressSender = new RecordSender(asIngress);
    await asIngressSender.connect();
    try {
      const forged = await asIngressSender
        .send(noticesTopicName(eventsTopic), [{ key: 'k', value: Buffer.from('x'), headers: {} }])
        .catch((e) => e);
      expect(forged).toMatchObject({ code: 'KAFKA_NOT_AUTHORIZED' });
    } finally {
      await asIngressSender.disconnect();
    }
    const sender = new RecordSender(connectionAs('pusher'));
    await sender.connect();
    try {
      const refused = await sender
        .send(eventsTopic, [{ key: 'k', value: Buffer.from('x'), headers: {} }])
        .catch((e) => e);
      expect(refused).toBeInstanceOf(KafkaSendError);
      expect(refused).toMatchObject({
        code: 'KAFKA_NOT_AUTHORIZED',
        canRetry: false,
        message: expect.stringMatching(
          /user "pusher" \(KAFKA_SASL_USERNAME\) is not authorized to write to topic/,
        ),
      });
    } finally {
      await sender.disconnect();
    }
  });

  it("replays with only the replay operator's ACLs, in transactions no other subscriber's operator may take", async () => {
    const name = uniqueName('sec-replay');
    await setup.ensureTopics(
      [dlqTopicName(name), retryTopicName(name, 1)].map((topic) => ({
        topic,
        partitions: 1,
        replicationFactor: 1,
      })),
    );
    await setup.grant('User:replay', componentAcls({ role: 'replay', subscriber: name }));
    const plain = new RecordSender(
      createKafka({ brokers: kafka.plaintextBrokers, clientId: 'secure-setup-dlq', quiet: true }),
    );
    await plain.connect();
    const origin = { topic: eventsTopic, partition: 0, offset: '0' };
    const deadLetteredAt = new Date().toISOString();
    const traceparent = randomTraceparent().traceparent;
    const letter = {
      subscriber: name,
      reason: 'terminal',
      status: 404,
      attempts: 1,
      origin,
      deadLetteredAt,
      traceparent,
    } as const;
    await plain.send(dlqTopicName(name), [
      deadLetterRecord({
        ...letter,
        eventId: uniqueName('evt-sec'),
        key: 'k',
        value: Buffer.from([0, 0, 0, 0, 7, 1]),
      }),
    ]);
    await plain.disconnect();
    const asReplay = { ...process.env, ...secureEnv(kafka, 'replay') };
    const run = await runCli(['dlq', 'replay', '--subscriber', name, '--json'], asReplay);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { replayed: unknown[] }).replayed).toHaveLength(1);
    // Another subscriber's replay lease is out of reach: its transactional id is not granted.
    const writer = new TransactionalWriter(connectionAs('replay'), {
      transactionalId: replayTransactionalId(uniqueName('sec-other')),
    });
    try {
      await expect(writer.connect()).rejects.toMatchObject({
        code: 'KAFKA_NOT_AUTHORIZED',
        message: expect.stringMatching(
          /user "replay" \(KAFKA_SASL_USERNAME\) could not take transactional id hookstream\.replay\..*DESCRIBE and WRITE on the transactional id/,
        ),
      });
    } finally {
      await writer.disconnect();
    }
  }, 60_000);

  it("serves the management API with only the API principal's ACLs, and no more", async () => {
    // Its own events topic, so the notices topic holds this case's notice alone.
    const apiEvents = uniqueName('secure-api-events');
    const name = uniqueName('sec-api');
    await setup.ensureTopics(
      [apiEvents, dlqTopicName(name), retryTopicName(name, 1)].map((topic) => ({
        topic,
        partitions: 1,
        replicationFactor: 1,
      })),
    );
    // The attempt log as the first pusher creates it (an earlier case's may have): a replay's steps go there.
    await setup.ensureTopics([{ topic: ATTEMPT_LOG_TOPIC, partitions: 6, replicationFactor: 1 }]);
    await setup.grant('User:api', componentAcls({ role: 'api', eventsTopic: apiEvents }));
    const plain = new RecordSender(
      createKafka({ brokers: kafka.plaintextBrokers, clientId: 'secure-setup-api', quiet: true }),
    );
    await plain.connect();
    const eventId = uniqueName('evt-sec-api');
    await plain.send(dlqTopicName(name), [
      deadLetterRecord({
        subscriber: name,
        reason: 'terminal',
        status: 404,
        attempts: 1,
        origin: { topic: apiEvents, partition: 0, offset: '0' },
        deadLetteredAt: new Date().toISOString(),
        traceparent: randomTraceparent().traceparent,
        eventId,
        key: 'k',
        value: Buffer.from([0, 0, 0, 0, 7, 1]),
      }),
    ]);
    // The event itself, for its ledger: the API finds it in the events topic by its id.
    await plain.send(apiEvents, [
      {
        key: 'k',
        value: Buffer.from([0, 0, 0, 0, 7, 1]),
        headers: { [CE_HEADER.id]: eventId, [CE_HEADER.type]: 'shipment.updated' },
      },
    ]);
    await plain.disconnect();

    // As `hookstream api` runs: its catalog followed, its ports on the API principal's connection.
    const settings = loadConnectionSettings(secureEnv(kafka, 'api'));
    const asApi = connectionAs('api');
    const catalog = new LiveCatalog(asApi, () => undefined);
    const token = randomBytes(18).toString('base64url');
    const server = new ApiServer({
      service: new ManagementService(
        kafkaPorts({
          kafka: asApi,
          catalog,
          eventsTopic: apiEvents,
          secretsKey: undefined,
          openPublisher: () =>
            startNoticeProducer({ ...settings, source: '/hookstream/api', eventsTopic: apiEvents }),
        }),
      ),
      tokens: ApiTokens.parse([`${token}=*`]),
      host: '127.0.0.1',
      port: 0,
      ratePerSecond: 1000,
    });
    await catalog.start();
    const base = await server.start();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/v1/subscribers/${name}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
      return { status: res.status, body: (await res.json()) as any };
    };
    try {
      const definition = { url: 'https://sec-api.example.com/hook', eventTypes: ['shipment.updated'] };
      const created = await call('PUT', '', definition);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await call('GET', '');
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.definition).toMatchObject(definition);
      const list = await fetch(`${base}/v1/subscribers`, { headers: { authorization: `Bearer ${token}` } });
      const listed = (await list.json()) as { items: { name: string }[]; retentionHeadroomError: unknown };
      expect(list.status, JSON.stringify(listed)).toBe(200);
      expect(listed.items.map((i) => i.name)).toContain(name);
      expect(listed.retentionHeadroomError).toBeNull();

      const paused = await call('POST', '/pause', { reason: 'secured' });
      expect([paused.status, paused.body.state?.kind], JSON.stringify(paused.body)).toEqual([200, 'paused']);
      const resumed = await call('POST', '/resume');
      expect([resumed.status, resumed.body.state?.kind], JSON.stringify(resumed.body)).toEqual([
        200,
        'active',
      ]);
      // Resuming a subscriber hookstream disabled publishes subscriber.enabled on the notices topic.
      const record = (await catalog.read()).subscribers.get(name);
      if (record === undefined) throw new Error(`${name} is not in the catalog`);
      const at = new Date().toISOString();
      await catalog.write([{ ...record, state: { kind: 'disabled', reason: 'gone', at, cause: 'gone' } }]);
      const enabled = await call('POST', '/resume');
      expect([enabled.status, enabled.body.noticeError], JSON.stringify(enabled.body)).toEqual([200, null]);
      expect((await setup.topicOffsets(noticesTopicName(apiEvents)))?.[0]?.high).toBe('1');

      // A rewind moves the group's ledger back: an OffsetCommit, which asks READ on the group.
      await setup.commitOffsets(subscriberGroupId(name), apiEvents, [{ partition: 0, offset: '1' }]);
      const rewound = await call('POST', '/rewind', { to: 'earliest' });
      expect(
        [rewound.status, rewound.body.applied, rewound.body.plan?.resend],
        JSON.stringify(rewound.body),
      ).toEqual([200, true, 1]);
      expect((await setup.committedOffsets(subscriberGroupId(name), apiEvents))[0]?.offset).toBe('0');

      const ledger = await fetch(`${base}/v1/events/${eventId}/ledger`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const ledgerBody = (await ledger.json()) as { origin: unknown };
      expect([ledger.status, ledgerBody.origin], JSON.stringify(ledgerBody)).toEqual([
        200,
        { topic: apiEvents, partition: 0, offset: '0' },
      ]);

      const letters = await call('GET', '/dead-letters');
      expect(letters.status, JSON.stringify(letters.body)).toBe(200);
      expect(letters.body.items.map((l: { eventId: string }) => l.eventId)).toEqual([eventId]);
      const steps = async () =>
        ((await setup.topicOffsets(ATTEMPT_LOG_TOPIC)) ?? []).reduce((n, p) => n + Number(p.high), 0);
      const stepsBefore = await steps();
      const job = await call('POST', '/dead-letters/replay', {});
      expect(job.status, JSON.stringify(job.body)).toBe(202);
      const done = await waitFor('the replay job done', async () => {
        const res = await fetch(`${base}/v1/jobs/${job.body.id}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const answer = (await res.json()) as {
          state: string;
          error: string | null;
          summary: { replayed: unknown[] };
        };
        return answer.state === 'running' ? undefined : answer;
      });
      expect([done.state, done.error, done.summary.replayed.length]).toEqual(['done', null, 1]);
      expect(await steps()).toBeGreaterThan(stepsBefore);

      // The customer portal on the API's grants: its links topic made, written and followed by
      // another instance; the attempt log indexed from its start.
      const minting = new KafkaPortalLinks(asApi, () => undefined);
      await minting.start();
      const minted = await minting.book.mint({ tenant: 'acme', scope: 'read', lifetimeSeconds: 600 }, 'tok');
      const following = new KafkaPortalLinks(asApi, () => undefined);
      await following.start();
      expect(following.book.open(minted.token)?.id).toBe(minted.link.id);
      await Promise.all([minting.stop(), following.stop()]);
      const store = new PortalStore({
        path: join(await mkdtemp(join(tmpdir(), 'secure-portal-')), 'index.sqlite'),
      });
      const indexer = new AttemptIndexer(asApi, { store });
      await indexer.start();
      expect(indexer.progress()).toMatchObject({ invalid: 0, lag: 0 });
      await indexer.stop();
      store.close();

      // A tenant's delete always purges, and so may the operator's: its group and topics deleted.
      const own = [dlqTopicName(name), replayLogTopicName(name), retryTopicName(name, 1)];
      expect(await setup.listTopics()).toEqual(expect.arrayContaining(own));
      const deleted = await fetch(`${base}/v1/subscribers/${name}?purge=true`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(deleted.status, await deleted.text()).toBe(200);
      const left = (await setup.listTopics()).filter((t) => t.startsWith(`hookstream.sub.${name}.`));
      expect(left).toEqual([]);
    } finally {
      await server.close();
      await catalog.stop();
    }
    // Outside its grants: the API's principal publishes no event.
    const sender = new RecordSender(asApi);
    await sender.connect();
    try {
      const refused = await sender
        .send(apiEvents, [{ key: 'k', value: Buffer.from('x'), headers: {} }])
        .catch((e) => e);
      expect(refused).toMatchObject({ code: 'KAFKA_NOT_AUTHORIZED' });
    } finally {
      await sender.disconnect();
    }
  }, 60_000);

  // Four processes that each fail on their own: side by side, they take the time of the slowest.
  it.concurrent.each([
    [
      'a wrong password',
      { KAFKA_SASL_PASSWORD: 'wrong' },
      /KAFKA_SASL_PASSWORD: Kafka refused user "pusher"/,
    ],
    [
      'a CA that did not sign the broker',
      { KAFKA_TLS_CA_FILE: 'other' },
      /KAFKA_TLS_CA_FILE: the broker's certificate is not signed/,
    ],
    [
      'no client certificate',
      { KAFKA_TLS_CERT_FILE: '', KAFKA_TLS_KEY_FILE: '' },
      /KAFKA_TLS_CERT_FILE: the broker (requires|refused) a client certificate/,
    ],
    [
      'a user without ACLs',
      { KAFKA_SASL_USERNAME: 'nobody', KAFKA_SASL_PASSWORD: SECURE_USERS.nobody },
      /user "nobody" \(KAFKA_SASL_USERNAME\) is not authorized/,
    ],
  ])('stops a pusher at start-up on %s, naming the setting', async (_, change, message) => {
    const env: Record<string, string> = { ...secureEnv(kafka, 'pusher'), ...change };
    if (env.KAFKA_TLS_CA_FILE === 'other') env.KAFKA_TLS_CA_FILE = kafka.pki.otherCaPem;
    for (const [k, v] of Object.entries(env)) if (v === '') delete env[k];
    const { code, output } = await failedPush(env);
    expect(code).not.toBe(0);
    expect(output).toMatch(message);
    expect(output).not.toContain(SECURE_USERS.pusher);
  });

  it('answers 503 naming the ACL when the ingress principal may not write the topic', async () => {
    const topic = uniqueName('secure-readonly');
    await setup.ensureTopics([{ topic, partitions: 1, replicationFactor: 1 }]);
    await setup.grant('User:nobody', [
      { resource: 'topic', pattern: 'literal', name: topic, operations: ['DESCRIBE'] },
    ]);
    const ingress = await startTestIngress(topic, {
      ...secureEnv(kafka, 'nobody'),
      INGRESS_LOG_LEVEL: 'silent',
    });
    try {
      const answer = await post(`${ingress.url}/v1/events`, shipment);
      expect(answer.status).toBe(503);
      expect(JSON.stringify(answer.body)).toMatch(/kafka_not_authorized.*not authorized to write to topic/);
    } finally {
      await ingress.close();
    }
  });

  it('refuses a wrong password at ingress start-up, never a 202', async () => {
    await expect(
      startTestIngress(eventsTopic, {
        ...secureEnv(kafka, 'ingress'),
        KAFKA_SASL_PASSWORD: 'wrong',
        INGRESS_LOG_LEVEL: 'silent',
      }),
    ).rejects.toThrow(/KAFKA_SASL_PASSWORD: Kafka refused user "ingress"/);
  });
});
