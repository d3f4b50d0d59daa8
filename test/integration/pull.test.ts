import { randomBytes } from 'node:crypto';
import { ApiServer, ApiTokens } from '@hookstream/api';
import { ApiClient, ApiClientError } from '@hookstream/api-client';
import { CE_HEADER } from '@hookstream/contracts';
import { createKafka } from '@hookstream/kafka';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import { PullHost, PusherResources } from '@hookstream/pusher-core';
import { LiveCatalog, readInstanceStatuses } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { freePortRange } from '../support/ports.ts';
import { sample, scrape } from '../support/prometheus.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// Issue 29 on the real stack: pull subscribers lease their events over the management API and
// acknowledge them there; the group's committed offsets stay the ledger.

const fx = new KafkaFixture();
const factory = new EventFactory();
const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-pull', quiet: true });
const token = () => randomBytes(18).toString('base64url');
const operatorToken = token();
const acme = uniqueName('acme');
const globex = uniqueName('globex');
const acmeToken = token();
const globexToken = token();
const tokens = [`${operatorToken}=*`, `${acmeToken}@${acme}`, `${globexToken}@${globex}`];
const live = new LiveCatalog(kafka, () => undefined);
const made: string[] = [];
let topic = '';
let base = '';
let server: ApiServer | null = null;
let pull: PullHost | null = null;
let resources: Promise<PusherResources> | null = null;

const client = (as: string, at = base) => new ApiClient({ baseUrl: at, token: as, maxRetries: 0 });
const idsOf = (events: readonly Record<string, unknown>[]) => events.map((e) => String(e.event_id));

/** A pull subscriber of this file's topic, created over the API as `as`, reading from the start. */
async function pullSubscriber(as: string, at = base): Promise<string> {
  const name = uniqueName('pull');
  await client(as, at).putSubscriber(name, { mode: 'pull', start: 'earliest' });
  made.push(name);
  return name;
}

/** Events on `to` (this file's topic unless told), with `ce_tenant` when given. */
async function publish(count: number, options: { tenant?: string; to?: string } = {}): Promise<TestEvent[]> {
  const events = Array.from({ length: count }, () => factory.event());
  const messages = await Promise.all(
    events.map(async (e) => {
      const message = await factory.message(e);
      if (options.tenant !== undefined) message.headers[CE_HEADER.tenant] = options.tenant;
      return message;
    }),
  );
  await fx.producer.send({ topic: options.to ?? topic, acks: -1, messages });
  return events;
}

/**
 * Leases until every one of `wanted` came (several leases, each acknowledged unless told not
 * to); a subscriber that starts at the earliest event also gets the earlier tests' events.
 * A call that times out (the group still joining) is only a missed look.
 */
async function leaseAll(
  c: ApiClient,
  name: string,
  wanted: readonly string[],
  ack = true,
): Promise<string[]> {
  const seen: string[] = [];
  await waitFor(
    `${wanted.length} events leased from ${name}`,
    async () => {
      const answer = await c.leaseEvents(name, { max: 500, wait: 2, lease: 30 }).catch((err: unknown) => {
        if (err instanceof ApiClientError && err.code === 'timeout') return null;
        throw err;
      });
      if (answer === null) return undefined;
      seen.push(...idsOf(answer.events));
      if (ack && answer.lease !== null)
        await c.ackEvents(name, { lease: answer.lease.id, cursors: answer.cursors });
      return wanted.every((id) => seen.includes(id)) ? true : undefined;
    },
    { timeoutMs: 90_000 },
  );
  return seen;
}

beforeAll(async () => {
  await fx.connect();
  await factory.init();
  topic = await fx.topic(3);
  await live.start();
  pull = new PullHost({
    resources: () => {
      resources ??= PusherResources.open({
        kafka: endpoints.kafka,
        registry: endpoints.registrySettings,
        clientId: 'test-pull-host',
        log: () => undefined,
      });
      return resources;
    },
    eventsTopic: topic,
    log: () => undefined,
    records: async () => (await live.read()).subscribers,
  });
  const service = new ManagementService(
    kafkaPorts({
      kafka,
      catalog: live,
      eventsTopic: topic,
      secretsKey: undefined,
      openPublisher: async () => {
        throw new Error('no notice is due here');
      },
      pull,
    }),
  );
  server = new ApiServer({
    service,
    tokens: ApiTokens.parse(tokens),
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: 1000,
  });
  base = await server.start();
});

afterAll(async () => {
  const operator = client(operatorToken);
  await pull?.stop();
  for (const name of made) await operator.deleteSubscriber(name, { purge: true }).catch(() => undefined);
  await server?.close();
  await (await resources)?.close();
  await live.stop();
  await fx.close();
});

describe('pull subscribers over the API', () => {
  it("a pull subscriber's start is committed at its PUT: events published before its first lease are leased, none from before the PUT", async () => {
    const before = await publish(4);
    const name = uniqueName('pull-latest');
    await client(operatorToken).putSubscriber(name, { mode: 'pull' });
    made.push(name);
    const after = await publish(6);
    const seen = await leaseAll(
      client(operatorToken),
      name,
      after.map((e) => e.id),
    );
    expect(seen.sort()).toEqual(after.map((e) => e.id).sort());
    expect(seen.filter((id) => before.some((e) => e.id === id))).toEqual([]);
  });

  it('two concurrent pullers get disjoint leases, and acks move the ledger to the end', async () => {
    const name = await pullSubscriber(operatorToken);
    const events = await publish(60);
    const c = client(operatorToken);
    // The first lease starts the group member; wait until events are there.
    await waitFor('events to lease', async () => {
      const peek = await c.leaseEvents(name, { max: 1, wait: 2, lease: 5 });
      if (peek.lease === null) return undefined;
      await c.nackEvents(name, { lease: peek.lease.id });
      return true;
    });
    const [a, b] = await Promise.all([
      c.leaseEvents(name, { max: 30, wait: 5, lease: 60 }),
      c.leaseEvents(name, { max: 30, wait: 5, lease: 60 }),
    ]);
    const first = idsOf(a.events);
    const second = idsOf(b.events);
    expect(first.filter((id) => second.includes(id))).toEqual([]);
    expect(first.length + second.length).toBeGreaterThan(0);
    for (const lease of [a, b])
      if (lease.lease !== null) await c.ackEvents(name, { lease: lease.lease.id, cursors: lease.cursors });
    const wanted = events.map((e) => e.id);
    const rest = await leaseAll(
      c,
      name,
      wanted.filter((id) => !first.includes(id) && !second.includes(id)),
    );
    // Each event once: no lease handed out what another held.
    const all = [...first, ...second, ...rest];
    expect(all.filter((id) => wanted.includes(id)).sort()).toEqual([...wanted].sort());
    await waitFor(`${name}'s ledger at the end`, async () =>
      (await fx.ledger(name, topic)) === (await fx.end(topic)) ? true : undefined,
    );
    // The API process reports what it serves, as a fleet instance does.
    await waitFor('the API in hookstream.instances, serving it', async () =>
      (await readInstanceStatuses(kafka)).some(
        (s) =>
          s.instance.startsWith('api:') &&
          s.subscribers.some((x) => x.name === name && x.state === 'running'),
      )
        ? true
        : undefined,
    );
  }, 120_000);

  it('an expired lease is leased again with attempt 2; a stale or foreign ack is 409 and moves nothing', async () => {
    const name = await pullSubscriber(operatorToken);
    const other = await pullSubscriber(operatorToken);
    const [event] = await publish(1);
    const c = client(operatorToken);
    const first = await waitFor('the event leased', async () => {
      const answer = await c.leaseEvents(name, { max: 1000, wait: 2, lease: 5 });
      const mine = answer.events.find((e) => e.event_id === event?.id);
      return mine === undefined ? undefined : { answer, mine };
    });
    expect(first.mine.attempt).toBe(1);
    const lease = first.answer.lease;
    if (lease === null) throw new Error('a lease');
    // Foreign: another subscriber's path; a cursor it did not hand out.
    const refused = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiClientError);
      return [(err as ApiClientError).status, (err as ApiClientError).code];
    };
    expect(await refused(c.ackEvents(other, { lease: lease.id }))).toEqual([409, 'lease_unknown']);
    expect(await refused(c.ackEvents(name, { lease: lease.id, cursors: [`${topic}:0:999999`] }))).toEqual([
      409,
      'cursor_unknown',
    ]);
    // Not acknowledged: after 5 s it is leased again, attempt 2.
    const again = await waitFor(
      'the event leased again',
      async () => {
        const answer = await c.leaseEvents(name, { max: 1000, wait: 2, lease: 30 });
        return answer.events.find((e) => e.event_id === event?.id) === undefined ? undefined : answer;
      },
      { timeoutMs: 30_000 },
    );
    expect(again.events.find((e) => e.event_id === event?.id)?.attempt).toBe(2);
    // The first lease has expired: its ack is refused.
    expect(await refused(c.ackEvents(name, { lease: lease.id }))).toEqual([409, 'lease_expired']);
    expect(await fx.ledger(name, topic)).toBeLessThan(await fx.end(topic));
    if (again.lease === null) throw new Error('a lease');
    expect((await c.ackEvents(name, { lease: again.lease.id })).acked).toBe(again.events.length);
    // Acked once: the same ack again is stale.
    expect(await refused(c.ackEvents(name, { lease: again.lease.id }))).toEqual([409, 'lease_expired']);
  }, 120_000);

  it("a tenant token cannot pull, ack or nack another tenant's subscriber (404), nor a push subscriber (409)", async () => {
    const name = await pullSubscriber(globexToken);
    const theirs = await publish(3, { tenant: globex });
    const acmeClient = client(acmeToken);
    for (const call of [
      acmeClient.leaseEvents(name, { max: 10, wait: 0 }),
      acmeClient.ackEvents(name, { lease: 'lease_nope' }),
      acmeClient.nackEvents(name, { lease: 'lease_nope' }),
    ]) {
      const err = await call.then(
        () => null,
        (e: unknown) => e,
      );
      expect([(err as ApiClientError).status, (err as ApiClientError).code]).toEqual([404, 'not_found']);
    }
    // Its own tenant's events only: the file's other events have none.
    const mine = await leaseAll(
      client(globexToken),
      name,
      theirs.map((e) => e.id),
    );
    expect(new Set(mine)).toEqual(new Set(theirs.map((e) => e.id)));
    const push = uniqueName('pull-push');
    await client(operatorToken).putSubscriber(push, { url: 'https://push.example.com/hook' });
    made.push(push);
    const err = await client(operatorToken)
      .leaseEvents(push, { wait: 0 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect((err as ApiClientError).code).toBe('not_pull');
  }, 120_000);

  it('a nack with a delay sends the events down the retry schedule; they come back from the tier', async () => {
    const name = await pullSubscriber(operatorToken);
    const [event] = await publish(1);
    const c = client(operatorToken);
    const leased = await waitFor('the event leased', async () => {
      const answer = await c.leaseEvents(name, { max: 1000, wait: 2, lease: 30 });
      if (answer.events.some((e) => e.event_id === event?.id)) return answer;
      // Earlier events only (their partitions were fetched first): acknowledged, out of the way.
      if (answer.lease !== null) await c.ackEvents(name, { lease: answer.lease.id });
      return undefined;
    });
    if (leased.lease === null || event === undefined) throw new Error('a lease');
    const others = idsOf(leased.events).filter((id) => id !== event.id);
    if (others.length > 0) await c.ackEvents(name, { lease: leased.lease.id, eventIds: others });
    expect(
      (await c.nackEvents(name, { lease: leased.lease.id, eventIds: [event.id], delayMs: 1000 })).nacked,
    ).toBe(1);
    // Settled into tier 1: the events topic's ledger passes it; it comes back from the tier,
    // attempt 2. Whatever else comes meanwhile (events of partitions fetched later) is acked.
    let back: Record<string, unknown> | undefined;
    await waitFor(
      'the event back from its tier, and the ledger at the end',
      async () => {
        const answer = await c.leaseEvents(name, { max: 1000, wait: 1, lease: 30 });
        back ??= answer.events.find((e) => e.event_id === event.id);
        if (answer.lease !== null) await c.ackEvents(name, { lease: answer.lease.id });
        return back !== undefined && (await fx.ledger(name, topic)) === (await fx.end(topic))
          ? true
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(back?.attempt).toBe(2);
  }, 120_000);
});

describe('reconcile and a pull subscriber', () => {
  it('counts what was pulled and acknowledged as delivered, and what was not as pending', async () => {
    const own = await fx.topic(1);
    const name = uniqueName('pull-required');
    // A required pull subscriber of its own topic, written as apply writes it.
    const host = new PullHost({
      resources: () => {
        resources ??= PusherResources.open({
          kafka: endpoints.kafka,
          registry: endpoints.registrySettings,
          clientId: 'test-pull-host',
          log: () => undefined,
        });
        return resources;
      },
      eventsTopic: own,
      log: () => undefined,
    });
    const api = new ApiServer({
      service: new ManagementService(
        kafkaPorts({
          kafka,
          catalog: live,
          eventsTopic: own,
          secretsKey: undefined,
          openPublisher: async () => {
            throw new Error('no notice is due here');
          },
          pull: host,
        }),
      ),
      tokens: ApiTokens.parse(tokens),
      host: '127.0.0.1',
      port: 0,
      ratePerSecond: 1000,
    });
    const at = await api.start();
    try {
      const fromMs = Date.now() - 60_000;
      await client(operatorToken, at).putSubscriber(name, {
        mode: 'pull',
        start: 'earliest',
        required: true,
      });
      made.push(name);
      const events = await publish(10, { to: own });
      const ids = events.map((e) => e.id);
      // Six acknowledged, four left leased (not acknowledged).
      const c = client(operatorToken, at);
      const leased = await waitFor('ten events leased', async () => {
        const answer = await c.leaseEvents(name, { max: 10, wait: 2, lease: 120 });
        return answer.events.length === 10 ? answer : undefined;
      });
      if (leased.lease === null) throw new Error('a lease');
      await c.ackEvents(name, { lease: leased.lease.id, eventIds: ids.slice(0, 6) });
      await waitFor(`${name}'s ledger at 6`, async () =>
        (await fx.ledger(name, own)) === 6 ? true : undefined,
      );
      const env = { ...process.env, KAFKA_BROKERS: endpoints.brokers.join(',') };
      const run = await runCli(
        [
          'reconcile',
          '--from',
          new Date(fromMs).toISOString(),
          '--topic',
          own,
          '--subscriber',
          name,
          '--json',
        ],
        env,
      );
      const report = JSON.parse(run.stdout) as { subscribers: { counts: Record<string, number> }[] };
      expect(report.subscribers[0]?.counts, run.stderr).toMatchObject({ delivered: 6, pending: 4 });
    } finally {
      await host.stop();
      await api.close();
    }
  }, 120_000);
});

describe('the API process killed mid-lease', () => {
  it('loses nothing: the events it leased are leased again after a restart', async () => {
    const apiToken = token();
    const start = async (eventsTopic: string, extra: readonly string[] = []) => {
      // The broker's shortest session: the restart waits for the killed member's to time out.
      const args = ['api', '--port', '0', '--topic', eventsTopic, '--session-timeout', '6000'];
      const child = spawnCli([...args, ...extra], {
        ...process.env,
        KAFKA_BROKERS: endpoints.brokers.join(','),
        HOOKSTREAM_API_TOKENS: `${apiToken}=*`,
        HOOKSTREAM_API_RATE: '1000',
      });
      const url = await waitFor(
        'the API to listen',
        async () => {
          if (child.exitCode !== null) throw new Error(`the API exited: ${child.output()}`);
          return /hookstream api on (http:\/\/\S+) /.exec(child.output())?.[1];
        },
        { timeoutMs: 60_000 },
      );
      return { child, url };
    };
    // A topic of its own: the subscriber sees only these events.
    const own = await fx.topic(2);
    let api = await start(own);
    const name = await pullSubscriber(apiToken, api.url);
    const events = await publish(20, { to: own });
    const ids = events.map((e) => e.id);
    const leased = await leaseAll(client(apiToken, api.url), name, ids, false);
    expect(new Set(leased)).toEqual(new Set(ids));
    api.child.kill('SIGKILL');
    await exited(api.child);
    expect(await fx.ledger(name, own)).toBe(0);
    const metricsPort = await freePortRange(1);
    api = await start(own, ['--metrics-port', String(metricsPort)]);
    try {
      // The group's member died with the process: once its session ends, the new one leases them all.
      const again = await leaseAll(client(apiToken, api.url), name, ids);
      expect(new Set(again)).toEqual(new Set(ids));
      await waitFor(`${name}'s ledger at the end`, async () =>
        (await fx.ledger(name, own)) === (await fx.end(own)) ? true : undefined,
      );
      // Its metrics, as a pusher's: every acknowledged event a delivered record.
      await waitFor("the pull subscriber in the API process's /metrics", async () => {
        const text = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
        const delivered = sample(text, 'hookstream_pusher_records_total', {
          subscriber: name,
          outcome: 'delivered',
        });
        return delivered !== undefined && delivered >= 20 ? true : undefined;
      });
    } finally {
      api.child.kill('SIGTERM');
      await exited(api.child);
    }
  }, 180_000);
});
