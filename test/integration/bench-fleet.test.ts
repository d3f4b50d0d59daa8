import { createKafka } from '@hookstream/kafka';
import { SubscriberCatalog } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { endpoints } from '../support/stack.ts';

interface Rate {
  delivered: number;
  perSecond: number;
  latency: { count: number; p50Ms: number; p99Ms: number };
}
interface Load {
  subscribers: number;
  published: number;
  publishErrors: number;
  all: Rate;
  healthy: Rate;
  doomedDelivered: number;
  fleetCpuPercent: number;
}
interface Report {
  prefix: string;
  eventsTopic: string;
  subscribers: number;
  routing: 'event-type' | 'tenant';
  join: { groups: number; joined: number; seconds: number | null; shared: number };
  memory: { rssMiB: number; heap: { usedMiB: number; totalMiB: number } | null; peakMiB: number };
  idle: { seconds: number; fleetCpuPercent: number; broker: { pid: number; cpuPercent: number } | null };
  ownTopics: { idle: { topics: number; partitions: number }; end: { topics: number; partitions: number } };
  load: Load;
  dead: Load | null;
  healthyRateRatio: number | null;
  targets: { target: string; measured: string; met: boolean }[];
  cleanup: { fleet: string; recordsLeft: number; topicsLeft: number; groupsLeft: number; errors: string[] };
}

// The benchmark is not a test: this only checks that it runs end to end on a tiny load, that its
// figures are sane, and that it leaves nothing behind.
describe('hookstream bench fleet', () => {
  it('measures a tiny fleet (5 subscribers, 3 under load, 1 dead) and cleans up after itself', async () => {
    const args = ['bench', 'fleet', '--subscribers', '5', '--active', '3', '--dead', '1'];
    args.push('--idle-seconds', '2', '--load-seconds', '3', '--json');
    const result = await runCli(args, process.env, 170_000);
    expect(result.code, result.stderr).toBe(0);
    const r = JSON.parse(result.stdout) as Report;

    expect(r.subscribers).toBe(5);
    expect(r.routing).toBe('event-type');
    expect(r.join).toMatchObject({ groups: 5, joined: 5, shared: 0 });
    expect(r.join.seconds).toBeGreaterThan(0);
    expect(r.memory.rssMiB).toBeGreaterThan(0);
    expect(r.memory.peakMiB).toBeGreaterThanOrEqual(r.memory.rssMiB);
    expect(r.memory.heap?.usedMiB).toBeGreaterThan(0);
    expect(r.idle.seconds).toBe(2);
    expect(r.idle.fleetCpuPercent).toBeGreaterThanOrEqual(0);
    if (r.idle.broker !== null) expect(r.idle.broker.cpuPercent).toBeGreaterThanOrEqual(0);
    // Tier and DLQ topics are created at a subscriber's first failure: none before any load.
    expect(r.ownTopics.idle).toEqual({ topics: 0, partitions: 0 });

    // 3 subscribers × 10 events/s × 3 s, every one delivered while all endpoints are up.
    expect(r.load).toMatchObject({ subscribers: 3, published: 90, publishErrors: 0, doomedDelivered: 30 });
    expect(r.load.all.delivered).toBe(90);
    expect(r.load.all.latency.count).toBe(90);
    expect(r.load.healthy.delivered).toBe(60);
    expect(r.load.healthy.perSecond).toBeGreaterThan(0);

    // The same with the third one's endpoint dead: nothing of it arrives, the other two's all do.
    expect(r.dead).not.toBeNull();
    expect(r.dead).toMatchObject({ published: 90, doomedDelivered: 0 });
    expect(r.dead?.healthy.delivered).toBe(60);
    expect(r.healthyRateRatio).toBeGreaterThan(0);

    expect(r.targets).toHaveLength(5);
    for (const t of r.targets) expect(typeof t.met).toBe('boolean');

    expect(r.cleanup).toEqual({ fleet: 'stopped', recordsLeft: 0, topicsLeft: 0, groupsLeft: 0, errors: [] });
    // Checked here too, not only as the benchmark reports it.
    const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'bench-fleet-test', quiet: true });
    const snapshot = await new SubscriberCatalog(kafka).read();
    expect([...snapshot.subscribers.keys()].filter((n) => n.startsWith(r.prefix))).toEqual([]);
    expect([...snapshot.registrations.keys()].filter((n) => n.startsWith(r.prefix))).toEqual([]);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const topics = await admin.listTopics();
      expect(topics.filter((t) => t === r.eventsTopic || t.includes(r.prefix))).toEqual([]);
      expect(await admin.listGroupIds(`hookstream.sub.${r.prefix}`)).toEqual([]);
    } finally {
      await admin.disconnect();
    }
  }, 180_000);

  it("routes by tenant with --tenants: each event reaches only its tenant's subscriber", async () => {
    const args = ['bench', 'fleet', '--tenants', '--subscribers', '4', '--active', '3', '--dead', '1'];
    args.push('--idle-seconds', '1', '--load-seconds', '2', '--json');
    const result = await runCli(args, process.env, 170_000);
    expect(result.code, result.stderr).toBe(0);
    const r = JSON.parse(result.stdout) as Report;

    expect(r.routing).toBe('tenant');
    expect(r.join).toMatchObject({ groups: 4, joined: 4, shared: 0 });
    // Every subscriber takes the one event type: without ce_tenant (or a tenant index that let
    // it pass) none would arrive, or the healthy ones would deliver the dead one's events too.
    expect(r.load).toMatchObject({ subscribers: 3, published: 60, publishErrors: 0, doomedDelivered: 20 });
    expect(r.load.all.delivered).toBe(60);
    expect(r.dead).toMatchObject({ published: 60, doomedDelivered: 0 });
    expect(r.dead?.all.delivered).toBe(40);
    expect(r.cleanup).toEqual({ fleet: 'stopped', recordsLeft: 0, topicsLeft: 0, groupsLeft: 0, errors: [] });
  }, 180_000);

  it('refuses a bad option with its usage, exit 2', async () => {
    const result = await runCli(['bench', 'fleet', '--active', '3', '--dead', '3'], process.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--dead 3 leaves none of the 3 active healthy');
    expect(result.stderr).toContain('Usage: hookstream bench fleet');
  });
});
