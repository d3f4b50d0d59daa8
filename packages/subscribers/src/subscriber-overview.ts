import type { InstanceStatus, SubscriberRecord, SubscriberState } from '@hookstream/contracts';
import { placements, readInstanceStatuses, type SubscriberPlacement } from './instance-statuses.ts';
import type { HeadroomBasis } from './retention-headroom.ts';
import type { CatalogKafka } from './subscriber-catalog.ts';
import {
  type MeasuringResources,
  overallHeadroom,
  subscriberHeadrooms,
  subscriberLoads,
} from './subscriber-status.ts';

/** One subscriber as `subscribers list` and the console show it: null where nothing is measured yet. */
export interface SubscriberOverview {
  readonly name: string;
  readonly state: SubscriberState;
  readonly host: string;
  readonly eventTypes: readonly string[];
  readonly lag: number | null;
  readonly oldestUnsettledAgeMs: number | null;
  /**
   * The least time, over the events topic's partitions, until retention reaches the first
   * record it has not settled (paused or not); 'unbounded' without retention; null: not measured.
   */
  readonly retentionHeadroomSeconds: number | 'unbounded' | null;
  /** Which limit comes first (`bytes`: retention.bytes at the last hour's ingest rate); null: none. */
  readonly retentionHeadroomBasis: HeadroomBasis | null;
  readonly dlqDepth: number | null;
  /** The worst breaker state its instances report; null: none reports one. */
  readonly breaker: 'closed' | 'open' | 'half-open' | null;
  /** HTTP attempts and 2xx answers of the last minutes over its instances; null: none reports them. */
  readonly recent: SubscriberPlacement['recent'];
  readonly instances: readonly string[];
  readonly failedOn: readonly { readonly instance: string; readonly error: string }[];
}

/**
 * Every subscriber's state, load and placement, sorted by name: the records' lag and DLQ depth
 * from Kafka and the pusher instances' own reports, measured once at `nowMs`.
 */
export async function subscriberOverviews(
  kafka: CatalogKafka,
  records: Iterable<SubscriberRecord>,
  context: { readonly eventsTopic: string; readonly nowMs: number },
): Promise<SubscriberOverview[]> {
  return (await subscriberOverviewsWithHeadroom(kafka, records, context)).rows;
}

/** The overviews, and why the retention headroom could not be measured (null: it was). */
export async function subscriberOverviewsWithHeadroom(
  kafka: CatalogKafka,
  records: Iterable<SubscriberRecord>,
  context: {
    readonly eventsTopic: string;
    readonly nowMs: number;
    /** The live pusher instances' reports; default: the instance status topic read whole. */
    readonly instanceStatuses?: () => Promise<InstanceStatus[]>;
    /** A long-running caller's kept admin, topic listing and headroom reader. */
    readonly kept?: MeasuringResources;
  },
): Promise<{ rows: SubscriberOverview[]; headroomError: string | null }> {
  const sorted = [...records].sort((a, b) => a.definition.name.localeCompare(b.definition.name));
  const [loadList, statuses, headrooms] = await Promise.all([
    subscriberLoads(kafka, sorted, context.eventsTopic, context.kept),
    context.instanceStatuses?.() ?? readInstanceStatuses(kafka, context.nowMs),
    subscriberHeadrooms(kafka, sorted, context.eventsTopic, context.nowMs, context.kept),
  ]);
  const loads = new Map(loadList.map((l) => [l.name, l]));
  const where = placements(statuses);
  const rows = sorted.map((r) => {
    const name = r.definition.name;
    const placement = where.get(name);
    const oldestAt = placement?.oldestUnsettledAtMs ?? null;
    return {
      name,
      state: r.state,
      // A pull subscriber has no endpoint: its events are leased over the API.
      host: r.definition.url === undefined ? '(pull)' : new URL(r.definition.url).host,
      eventTypes: r.definition.eventTypes,
      lag: loads.get(name)?.lag ?? null,
      oldestUnsettledAgeMs: oldestAt === null ? null : Math.max(0, context.nowMs - oldestAt),
      ...overallHeadroom(headrooms.byName.get(name)),
      dlqDepth: loads.get(name)?.dlqDepth ?? null,
      breaker: placement?.breaker ?? null,
      recent: placement?.recent ?? null,
      instances: placement?.instances ?? [],
      failedOn: placement?.failed ?? [],
    };
  });
  return { rows, headroomError: headrooms.error };
}
