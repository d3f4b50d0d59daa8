import { CE_HEADER, noticesTopicName, SubscriberDefinition, subscriberGroupId } from '@hookstream/contracts';
import type { FleetProcess } from '@hookstream/pusher';
import { recordOfDefinition, SubscriberCatalog } from '@hookstream/subscribers';
import { type MetricsServer, serveMetrics, startMetrics } from '@hookstream/telemetry';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogEnv, startCatalogFleet, subscribersCli } from '../support/catalog.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { freePort } from '../support/ports.ts';
import { sample, scrape } from '../support/prometheus.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { endOffsetTotal, readRecords } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const fleets: FleetProcess[] = [];
let metricsServer: MetricsServer | undefined;

const RETENTION_MS = 600_000;

interface ListRow {
  readonly name: string;
  readonly retentionHeadroomSeconds: number | 'unbounded' | null;
  readonly retentionHeadroomBasis: string | null;
}
interface ShowLedger {
  readonly partition: number;
  readonly lag: number | null;
  readonly oldestOwedAt: string | null;
  readonly retentionHeadroomSeconds: number | 'unbounded' | null;
}

describe('retention headroom', () => {
  openForSuite(fx, factory, receivers);
  afterAll(async () => {
    for (const f of fleets) await f.stop();
    await metricsServer?.close();
  });

  it('is shown for an active and a paused subscriber on a topic kept 10 minutes, and the paused one warns another subscriber once per crossing, from two fleet instances', async () => {
    const topic = await fx.topic(2, { 'retention.ms': String(RETENTION_MS) });
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('headroom');
    const active = `${prefix}-active`;
    const paused = `${prefix}-paused`;
    const ops = `${prefix}-ops`;
    const [activeHook, pausedHook, opsHook] = await Promise.all([
      receivers.start(),
      receivers.start(),
      receivers.start(),
    ]);
    const common = { start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 500 } };
    // Written as a catalog writer would: apply refuses record version 3 while an instance that
    // cannot read it reports in hookstream.instances, and the shared stack's other checkouts may
    // run older fleets.
    await new SubscriberCatalog(fx.kafka).write(
      [
        // Its warning below what a record in flight has, so its deliveries never warn.
        {
          ...common,
          name: active,
          url: activeHook.url,
          eventTypes: ['shipment.updated'],
          retentionWarningMs: 60_000,
        },
        // An hour: more than the topic keeps, so any record it owes is at risk at once.
        {
          ...common,
          name: paused,
          url: pausedHook.url,
          eventTypes: ['shipment.updated'],
          retentionWarningMs: 3_600_000,
        },
        // It passes over the shipments, and its ledger trails them by up to 10 s: a warning of a
        // minute (not 24 h, more than this topic keeps) keeps it from warning about itself.
        {
          ...common,
          name: ops,
          url: opsHook.url,
          eventTypes: ['subscriber.retention_at_risk'],
          retentionWarningMs: 60_000,
        },
      ].map((d) => recordOfDefinition(SubscriberDefinition.parse(d), new Date())),
    );
    const metrics = await startMetrics({ serviceName: 'hookstream-pusher' });
    metricsServer = await serveMetrics(metrics, '127.0.0.1', await freePort());
    const published = new Map<string, string[]>();
    for (const instance of ['a', 'b'])
      fleets.push(
        await startCatalogFleet({
          topic,
          prefix,
          secretsKey,
          instance: `${prefix}-${instance}`,
          retentionCheckMs: 1000,
          log: (_level, msg, fields) => {
            // Every notice it sends, or tries to.
            if (msg.startsWith('retention headroom below the warning threshold'))
              published.set(instance, [
                ...(published.get(instance) ?? []),
                `${fields?.subscriber}:${fields?.partition}`,
              ]);
          },
          ...(instance === 'a' ? { meter: metrics.meter } : {}),
        }),
      );
    // The paused subscriber runs long enough to have a ledger (its start position), then pauses.
    await waitFor('every subscriber to have a ledger', async () => {
      for (const name of [active, paused, ops]) {
        const ledger = await fx.admin.committedOffsets(subscriberGroupId(name), topic);
        if (ledger.length < 2 || ledger.some((c) => c.offset === null)) return undefined;
      }
      return true;
    });
    await subscribersCli(env, 'pause', paused, '--reason', 'headroom test');
    await waitFor('the fleets to stop the paused subscriber', async () =>
      fleets.every((f) => !f.entries().some((e) => e.name === paused)) ? true : undefined,
    );

    const events = Array.from({ length: 6 }, () => factory.event('shipment.updated'));
    await fx.produce(topic, factory, events);
    await waitFor('the active subscriber to deliver every event', async () =>
      events.every((e) => activeHook.arrivals.some((a) => a.eventId === e.id && a.status === 204))
        ? true
        : undefined,
    );

    const list = await waitFor('list to show both headrooms', async () => {
      const rows = (await subscribersCli<{ subscribers: ListRow[] }>(env, 'list', '--json')).subscribers;
      const a = rows.find((r) => r.name === active);
      const p = rows.find((r) => r.name === paused);
      // The active one's ledger reaches the end once its commits land.
      return typeof a?.retentionHeadroomSeconds === 'number' &&
        a.retentionHeadroomSeconds >= RETENTION_MS / 1000 - 5 &&
        p
        ? { a, p }
        : undefined;
    });
    // Nothing owed: a whole retention, as the next record would have.
    expect(list.a.retentionHeadroomSeconds).toBeLessThanOrEqual(RETENTION_MS / 1000);
    expect(list.a.retentionHeadroomBasis).toBe('time');
    // Owes the six records: the oldest one's timestamp plus ten minutes.
    expect(list.p.retentionHeadroomSeconds).toBeGreaterThan(RETENTION_MS / 1000 - 120);
    expect(list.p.retentionHeadroomSeconds).toBeLessThan(RETENTION_MS / 1000);
    expect(list.p.retentionHeadroomBasis).toBe('time');
    const table = await subscribersCli<string>(env, 'list');
    expect(table).toContain('retention headroom');
    expect(table).toMatch(new RegExp(`${paused}\\s+paused[^\\n]*\\s9m\\d+s\\s`));

    const show = await subscribersCli<{ ledger: ShowLedger[]; retentionHeadroomSeconds: number }>(
      env,
      'show',
      paused,
      '--json',
    );
    // Measured a few seconds later: the same record, so a little less.
    expect(show.retentionHeadroomSeconds).toBeLessThanOrEqual(Number(list.p.retentionHeadroomSeconds));
    expect(show.retentionHeadroomSeconds).toBeGreaterThan(Number(list.p.retentionHeadroomSeconds) - 30);
    const owing = show.ledger.filter((l) => (l.lag ?? 0) > 0);
    expect(owing.length).toBeGreaterThan(0);
    for (const l of owing) {
      expect(l.oldestOwedAt).not.toBeNull();
      expect(l.retentionHeadroomSeconds).toBeLessThan(RETENTION_MS / 1000);
    }
    expect(await subscribersCli<string>(env, 'show', paused)).toMatch(
      /retention headroom: 9m\d+s \(warning below 1h\)/,
    );

    // One notice per owing partition reaches the ops subscriber, though both instances saw it.
    const notices = noticesTopicName(topic);
    await waitFor('a notice per owing partition at the ops hook', async () =>
      opsHook.arrivals.filter((a) => a.body?.type === 'subscriber.retention_at_risk').length >= owing.length
        ? true
        : undefined,
    );
    const firstSeenAt = Date.now();
    // Both instances look again (twice each) with the subscriber still below the threshold.
    await waitFor('two more looks by each instance', async () =>
      fleets.every((f) => (f.retentionHeadroom().lookedAtMs ?? 0) > firstSeenAt + 1000) ? true : undefined,
    );
    const copies = (await readRecords(notices, await endOffsetTotal(notices))).filter(
      (r) => r.headers[CE_HEADER.type] === 'subscriber.retention_at_risk',
    );
    const ids = new Set(copies.map((c) => c.headers[CE_HEADER.id]));
    expect([...ids].sort()).toEqual(
      owing.map((l) => `subscriber.retention_at_risk:${paused}:${topic}:${l.partition}:0`).sort(),
    );
    // Each instance sent once per crossing, however often it looked (its producer would also
    // refuse a repeated id, so the copies on the topic alone cannot tell).
    for (const instance of ['a', 'b'])
      expect((published.get(instance) ?? []).sort()).toEqual(
        owing.map((l) => `${paused}:${l.partition}`).sort(),
      );
    expect(copies.length).toBeLessThanOrEqual(2 * owing.length);
    await waitFor('the ops hook to settle every copy', async () => {
      const [ledger] = await fx.admin.committedOffsets(subscriberGroupId(ops), notices);
      return Number(ledger?.offset ?? -1) >= copies.length ? true : undefined;
    });
    const received = opsHook.arrivals.filter((a) => a.body?.type === 'subscriber.retention_at_risk');
    expect(received).toHaveLength(owing.length);
    for (const r of received) {
      expect(r.body).toMatchObject({
        subscriber: paused,
        state: 'paused',
        topic,
        offset: '0',
        basis: 'time',
        retention_ms: RETENTION_MS,
        retention_bytes: null,
        warning_ms: 3_600_000,
        events_topic: topic,
      });
      expect(r.body?.headroom_seconds).toBeLessThan(RETENTION_MS / 1000);
    }
    // Only the paused subscriber warned.
    expect(copies.every((c) => c.key === paused)).toBe(true);

    // The gauge, per subscriber, topic and partition.
    const text = await scrape(`${metricsServer.url}`);
    for (const l of owing) {
      const seconds = sample(text, 'hookstream_retention_headroom_seconds', {
        subscriber: paused,
        topic,
        partition: l.partition,
      });
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThan(RETENTION_MS / 1000);
    }
    expect(
      sample(text, 'hookstream_retention_headroom_seconds', { subscriber: active, topic }),
    ).toBeGreaterThan(RETENTION_MS / 1000 - 60);

    // Resumed, it catches up: recovered. Paused again with new records owed: a new crossing, a
    // new notice named by the new ledger offset.
    await subscribersCli(env, 'resume', paused);
    const caughtUp = await waitFor('the resumed subscriber to settle everything', async () => {
      const ends = (await fx.admin.topicOffsets(topic)) ?? [];
      const ledger = await fx.admin.committedOffsets(subscriberGroupId(paused), topic);
      const all = ends.every((e) => ledger.find((c) => c.partition === e.partition)?.offset === e.high);
      return all ? new Map(ends.map((e) => [e.partition, e.high])) : undefined;
    });
    const recoveredAt = Date.now();
    await waitFor('a look by each instance since', async () =>
      fleets.every((f) => (f.retentionHeadroom().lookedAtMs ?? 0) > recoveredAt) ? true : undefined,
    );
    await subscribersCli(env, 'pause', paused, '--reason', 'again');
    await waitFor('the fleets to stop it again', async () =>
      fleets.every((f) => !f.entries().some((e) => e.name === paused)) ? true : undefined,
    );
    const more = Array.from({ length: 4 }, () => factory.event('shipment.updated'));
    await fx.produce(topic, factory, more);
    const ends = (await fx.admin.topicOffsets(topic)) ?? [];
    const owingAgain = ends.filter((e) => e.high !== caughtUp.get(e.partition));
    const expected = owingAgain.map(
      (e) => `subscriber.retention_at_risk:${paused}:${topic}:${e.partition}:${caughtUp.get(e.partition)}`,
    );
    const again = await waitFor('a notice per partition owing again', async () => {
      const got = opsHook.arrivals.filter(
        (a) => a.body?.type === 'subscriber.retention_at_risk' && expected.includes(a.eventId ?? ''),
      );
      return got.length >= expected.length ? got : undefined;
    });
    expect(new Set(again.map((a) => a.eventId)).size).toBe(expected.length);
    for (const a of again) expect(a.body).toMatchObject({ subscriber: paused, state: 'paused' });
  }, 150_000);
});
