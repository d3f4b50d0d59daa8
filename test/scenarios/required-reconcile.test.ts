import { dlqTopicName } from '@hookstream/contracts';
import type { ReconcileReport } from '@hookstream/dead-letter-tools';
import type { FleetProcess } from '@hookstream/pusher';
import { SampleReceiver } from '@hookstream/receiver';
import { type MetricsServer, serveMetrics, startMetrics } from '@hookstream/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEnv, handMadeRecord, produceRegistryRecords, startCatalogFleet } from '../support/catalog.ts';
import { type CliResult, runCli } from '../support/cli.ts';
import { post, TOKENS } from '../support/ingress.ts';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { sample, scrape } from '../support/prometheus.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { deadLetterTotal } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Seed 002's incident as a reconcile scenario: billing, audit and entitlements are required
// consumers of key.revoked; audit answers 503 until reconcile has seen it retrying and each event
// failed there twice (a few seconds: the tiers are short). While audit retries, reconcile shows its
// obligations pending or retrying (and exits 0: they are on their way); once it recovers, all
// three delivered. Then billing answers one event with a terminal 422: reconcile exits 1 naming
// it, and exits 0 again once that dead letter is replayed and delivered.
const KEYS = 30;

const fx = new KafkaFixture();
const receivers = {
  billing: new SampleReceiver({ record: true }),
  audit: new SampleReceiver({ record: true }),
  entitlements: new SampleReceiver({ record: true }),
};
const topic = uniqueName('scenario-reconcile');
const prefix = uniqueName('rec');
const names = {
  billing: `${prefix}-billing`,
  audit: `${prefix}-audit`,
  entitlements: `${prefix}-entitlements`,
};
const { env, secretsKey } = catalogEnv(topic);
let ingress: IngressProcess;
/** Where each key.revoked event landed on the events topic. */
const keyRecords: { partition: number; offset: string }[] = [];
let fleet: FleetProcess | undefined;
let metricsServer: MetricsServer | undefined;

async function reconcile(fromMs: number): Promise<{ run: CliResult; report: ReconcileReport }> {
  const subs = Object.values(names).flatMap((n) => ['--subscriber', n]);
  const args = ['reconcile', '--from', new Date(fromMs).toISOString(), '--topic', topic, ...subs];
  const run = await runCli([...args, '--json'], env);
  expect(run.stderr, run.stderr).not.toMatch(/reconcile: /);
  return { run, report: JSON.parse(run.stdout) as ReconcileReport };
}

const counts = (report: ReconcileReport, name: string) =>
  report.subscribers.find((s) => s.subscriber === name)?.counts;

async function publish(type: 'key.revoked' | 'shipment.updated', i: number): Promise<string> {
  const id = `${uniqueName(type === 'key.revoked' ? 'revoked' : 'shipment')}-${i}`;
  const body =
    type === 'key.revoked'
      ? { id, type, key: `tenant-${i % 4}`, data: { tenant_id: `tenant-${i % 4}`, key_id: `key-${i}` } }
      : { id, type, data: { shipment: { id: `shp-${i}`, status: 'x' } } };
  const answer = await post(`${ingress.url}/v1/events`, body, {
    token: type === 'key.revoked' ? TOKENS.keysOnly : TOKENS.all,
  });
  expect(answer.status).toBe(202);
  if (type === 'key.revoked') keyRecords.push(answer.body as { partition: number; offset: string });
  return id;
}

describe('scenario: reconcile three required consumers of key.revoked, one answering 503 meanwhile', () => {
  beforeAll(async () => {
    await fx.connect();
    for (const r of Object.values(receivers)) await r.listen();
    ingress = await spawnIngressCli(topic, { INGRESS_LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await fleet?.stop();
    await metricsServer?.close();
    await ingress?.stop();
    await fx.close();
    await Promise.all(Object.values(receivers).map((r) => r.close().catch(() => undefined)));
  });

  it('pending or retrying while audit is down, all delivered after, exit 1 naming a terminal 4xx until replayed', async () => {
    const requiredFrom = new Date(Date.now() - 60_000).toISOString();
    const definition = (key: keyof typeof names) => ({
      name: names[key],
      url: receivers[key].url,
      eventTypes: ['key.revoked'],
      required: true,
      requiredFrom,
      start: 'earliest',
      allowPrivateNetwork: true,
      // The tier path: with its breaker on, audit's records would wait in place (pending).
      ...(key === 'audit' ? { breaker: { enabled: false } } : {}),
      retry: { delaysMs: [500, 1000, 2000], maxAttempts: 100, maxAgeMs: 3_600_000, jitter: 0.1 },
    });
    // Written directly, as version-3 records: `subscribers apply` would refuse them while an
    // older fleet of another checkout on this machine's shared stack announces itself
    // (test/integration/catalog-versions.test.ts covers that guard).
    await produceRegistryRecords(
      fx.kafka,
      (['billing', 'audit', 'entitlements'] as const).map((key) => ({
        key: names[key],
        value: handMadeRecord(definition(key), { version: 3 }),
      })),
    );
    const metrics = await startMetrics({ serviceName: 'hookstream-pusher' });
    metricsServer = await serveMetrics(metrics, '127.0.0.1', 0);
    const url = metricsServer.url;
    const oldestPending = async (key: keyof typeof names) =>
      sample(await scrape(url), 'hookstream_required_oldest_pending_seconds', { subscriber: names[key] });
    fleet = await startCatalogFleet({ topic, prefix, secretsKey, meter: metrics.meter });
    const { billing, audit, entitlements } = receivers;

    audit.setBehaviour({ fixedStatus: 503 });
    const downAt = Date.now();
    const fromMs = downAt - 1000;
    const ids: string[] = [];
    let shipments = 0;
    for (let i = 0; i < KEYS; i++) {
      ids.push(await publish('key.revoked', i));
      if (i % 3 === 0) {
        await publish('shipment.updated', i);
        shipments++;
      }
    }
    await waitFor('billing and entitlements to have every key event', async () =>
      billing.stats().accepted === KEYS && entitlements.stats().accepted === KEYS ? true : undefined,
    );
    await waitFor('billing and entitlements ledgers past every key event', async () =>
      (await fx.ledgerPast(names.billing, topic, keyRecords)) &&
      (await fx.ledgerPast(names.entitlements, topic, keyRecords))
        ? true
        : undefined,
    );
    await waitFor('audit to have refused every key event once', async () =>
      audit.stats().failed >= KEYS ? true : undefined,
    );

    // The gauge to page on: audit holds records it cannot deliver; billing holds none.
    await waitFor('audit to hold a required delivery for over a second', async () =>
      ((await oldestPending('audit')) ?? 0) > 1 ? true : undefined,
    );
    await waitFor('billing to hold none', async () =>
      (await oldestPending('billing')) === 0 ? true : undefined,
    );

    // While audit retries: its obligations are pending or retrying, none delivered, exit 0.
    const during = await reconcile(fromMs);
    expect(during.run.code, during.run.stdout).toBe(0);
    expect(during.report.events).toBe(KEYS + shipments);
    for (const name of [names.billing, names.entitlements])
      expect(counts(during.report, name)).toMatchObject({ delivered: KEYS, filtered: shipments, pending: 0 });
    const a = counts(during.report, names.audit);
    expect(a?.delivered).toBe(0);
    expect((a?.pending ?? 0) + (a?.retrying ?? 0)).toBe(KEYS);
    expect(a?.filtered).toBe(shipments);
    expect(a?.['dead-lettered']).toBe(0);
    expect(during.report.boundary).toBeNull();

    // The outage ends once audit's tiers were walked: every event refused a second time.
    await waitFor('audit to have refused every key event twice', async () =>
      audit.stats().failed >= 2 * KEYS ? true : undefined,
    );
    audit.setBehaviour({ fixedStatus: null });
    await waitFor('audit to catch up', async () => (audit.stats().accepted === KEYS ? true : undefined), {
      timeoutMs: 30_000,
    });
    await waitFor('audit to hold nothing once caught up', async () =>
      (await oldestPending('audit')) === 0 ? true : undefined,
    );
    // Its tiers' ledgers move within a second or so of the deliveries.
    const after = await waitFor('reconcile to find all three delivered', async () => {
      const r = await reconcile(fromMs);
      return Object.values(names).every((n) => counts(r.report, n)?.delivered === KEYS) ? r : undefined;
    });
    expect(after.run.code, after.run.stdout).toBe(0);
    for (const name of Object.values(names))
      expect(counts(after.report, name)).toMatchObject({
        delivered: KEYS,
        pending: 0,
        retrying: 0,
        'dead-lettered': 0,
        lost: 0,
      });

    // One terminal 4xx for billing: dead-lettered, not replayed, exit 1 naming the event.
    billing.setBehaviour({ fixedStatus: 422 });
    const refused = await publish('key.revoked', KEYS);
    await waitFor('the 422 to be dead-lettered', async () =>
      (await deadLetterTotal(dlqTopicName(names.billing))) === 1 ? true : undefined,
    );
    billing.setBehaviour({ fixedStatus: null });
    await waitFor('entitlements and audit to have it', async () =>
      entitlements.stats().accepted === KEYS + 1 && audit.stats().accepted === KEYS + 1 ? true : undefined,
    );
    const dead = await waitFor('reconcile to see the dead letter', async () => {
      const r = await reconcile(fromMs);
      return r.run.code === 1 ? r : undefined;
    });
    const b = dead.report.subscribers.find((s) => s.subscriber === names.billing);
    expect(b?.counts['dead-lettered']).toBe(1);
    expect(b?.listed['dead-lettered']?.map((l) => l.eventId)).toEqual([refused]);
    expect(b?.listed['dead-lettered']?.[0]?.detail).toContain('terminal');
    // The table for people names it too.
    const people = await runCli(
      [
        'reconcile',
        '--from',
        new Date(fromMs).toISOString(),
        '--topic',
        topic,
        '--subscriber',
        names.billing,
      ],
      env,
    );
    expect(people.code).toBe(1);
    expect(people.stdout).toContain(`${names.billing}: dead-lettered 1`);
    expect(people.stdout).toContain(refused);
    // --type narrows the events read: none of the shipments is anyone's obligation anyway.
    const typed = await runCli(
      [
        'reconcile',
        '--from',
        new Date(fromMs).toISOString(),
        '--topic',
        topic,
        '--type',
        'shipment.updated',
        '--subscriber',
        names.billing,
        '--json',
      ],
      env,
    );
    expect(typed.code).toBe(0);
    expect((JSON.parse(typed.stdout) as ReconcileReport).events).toBe(shipments);

    // Replayed and delivered: the obligation is met again.
    const replay = await runCli(['dlq', 'replay', '--subscriber', names.billing], env);
    expect(replay.code, replay.stderr).toBe(0);
    const met = await waitFor('reconcile to find the replay delivered', async () => {
      const r = await reconcile(fromMs);
      return counts(r.report, names.billing)?.delivered === KEYS + 1 ? r : undefined;
    });
    expect(met.run.code, met.run.stdout).toBe(0);
    expect(counts(met.report, names.billing)).toMatchObject({ 'dead-lettered': 0, replayed: 0 });
  }, 240_000);
});
