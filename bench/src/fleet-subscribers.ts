import { parseSubscriberSpec, registrationKey, type SubscriberRecord } from '@hookstream/contracts';
import type { KafkaConnection } from '@hookstream/kafka';
import { type DefinitionFile, planApply, recordsForPlan, SubscriberCatalog } from '@hookstream/subscribers';

/** What a benchmark subscriber does: waits (idle), receives load, or receives load and then dies. */
export type BenchRole = 'idle' | 'active' | 'doomed';

/** What routes an event to one subscriber: a type of its own, or a tenant of its own on one shared type. */
export type BenchRouting = 'event-type' | 'tenant';

export interface BenchSubscriber {
  readonly name: string;
  /**
   * Its one event type: no one else's when routing by type (every other event reaches it only to
   * be skipped by ce_type), the same for all when routing by tenant.
   */
  readonly eventType: string;
  /** Its tenant (its definition's `tenant`, its events' `ce_tenant`) when routing by tenant. */
  readonly tenant?: string;
  readonly role: BenchRole;
}

/** The one event type every subscriber takes when tenants route. */
const SHARED_EVENT_TYPE = 'bench.fleet';

/** Records per write to the catalog topic, well under a broker's 1 MiB batch. */
const WRITE_CHUNK = 200;

/**
 * `count` subscribers named `<prefix>-0001`…: the first `active` receive load, the last `doomed`
 * of those have their endpoint die before the second load; the rest stay idle. Routed by
 * `bench.<scope>s0001`… types, or by tenants `t-<scope>0001`… on one shared type. `scope`
 * (`k2.`, say) keeps several sets on one topic apart: without it every shard's `-0001` took
 * the same events, and each event arrived once per shard.
 */
export function benchFleetSubscribers(
  prefix: string,
  count: number,
  active: number,
  doomed: number,
  routing: BenchRouting = 'event-type',
  scope = '',
): BenchSubscriber[] {
  const width = Math.max(4, String(count).length);
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(width, '0');
    const role: BenchRole = i >= active ? 'idle' : i >= active - doomed ? 'doomed' : 'active';
    const name = `${prefix}-${n}`;
    return routing === 'tenant'
      ? { name, eventType: SHARED_EVENT_TYPE, tenant: `t-${scope.replace('.', '-')}${n}`, role }
      : { name, eventType: `bench.${scope}s${n}`, role };
  });
}

export interface RegisterOptions {
  /** Where the idle and active subscribers deliver, and where the doomed ones do. */
  readonly url: string;
  readonly doomedUrl: string;
  /** The environment variable holding the whsec_ secret every subscriber signs with. */
  readonly secretEnv: string;
}

/**
 * Writes their records to the catalog topic as `hookstream subscribers apply` does, in a few
 * batches. Without apply's FLEET_TOO_OLD check: the only fleet that must read them is the bench's
 * own, of this checkout, and an older instance on a shared stack never runs a record it cannot
 * parse.
 */
export async function registerSubscribers(
  kafka: KafkaConnection,
  subscribers: readonly BenchSubscriber[],
  options: RegisterOptions,
): Promise<void> {
  const records = subscriberRecords(subscribers, options);
  const catalog = new SubscriberCatalog(kafka);
  for (let i = 0; i < records.length; i += WRITE_CHUNK)
    await catalog.write(records.slice(i, i + WRITE_CHUNK));
}

/**
 * Their records as apply builds them: validated specs, planned against an empty catalog (the
 * names are new), each written as the lowest version that holds it (4 with a tenant).
 */
export function subscriberRecords(
  subscribers: readonly BenchSubscriber[],
  options: RegisterOptions,
): SubscriberRecord[] {
  const files: DefinitionFile[] = subscribers.map((s) => {
    const parsed = parseSubscriberSpec({
      name: s.name,
      url: s.role === 'doomed' ? options.doomedUrl : options.url,
      eventTypes: [s.eventType],
      start: 'earliest',
      rate: { perSecond: 100 },
      secret: { env: options.secretEnv },
      allowPrivateNetwork: true,
      ...(s.tenant === undefined ? {} : { tenant: s.tenant }),
    });
    if (!parsed.ok) throw new Error(`benchmark subscriber ${s.name}: ${parsed.error}`);
    return { path: `(bench) ${s.name}`, spec: parsed.value };
  });
  return recordsForPlan(planApply(new Map(), files), new Map(), { now: new Date(), secretsKey: undefined });
}

/** Tombstones their records and the registrations the fleet wrote for them on `eventsTopic`. */
export async function deleteSubscribers(
  kafka: KafkaConnection,
  names: readonly string[],
  eventsTopic: string,
): Promise<void> {
  const keys = names.flatMap((name) => [name, registrationKey(name, eventsTopic)]);
  const catalog = new SubscriberCatalog(kafka);
  for (let i = 0; i < keys.length; i += WRITE_CHUNK) await catalog.tombstone(keys.slice(i, i + WRITE_CHUNK));
}

/** How many records (definitions and registrations) the registry still holds for names with this prefix. */
export async function subscribersLeft(kafka: KafkaConnection, prefix: string): Promise<number> {
  const snapshot = await new SubscriberCatalog(kafka).read();
  const mine = (name: string) => name.startsWith(prefix);
  const definitions = [...snapshot.subscribers.keys()].filter(mine).length;
  const registrations = [...snapshot.registrations].filter(([name]) => mine(name));
  return definitions + registrations.reduce((sum, [, keys]) => sum + keys.length, 0);
}
