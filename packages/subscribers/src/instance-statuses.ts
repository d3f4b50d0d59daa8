import {
  fieldsNewerThan,
  INSTANCE_STATUS_TOPIC,
  InstanceStatus,
  isInstanceStale,
  recordVersionsOf,
  type SubscriberRecord,
} from '@hookstream/contracts';
import { KafkaReadError, readTopic } from '@hookstream/kafka';
import type { CatalogKafka } from './subscriber-catalog.ts';

/** Where one subscriber runs right now, from the instances' own reports. */
export interface SubscriberPlacement {
  /** Instance names running it (starting or running), sorted. */
  readonly instances: readonly string[];
  /** Instances where it failed to start or crashed, with the error they report. */
  readonly failed: readonly { readonly instance: string; readonly error: string }[];
  /** The oldest unsettled record any of them holds (Kafka timestamp, ms); null: none. */
  readonly oldestUnsettledAtMs: number | null;
  /** The worst breaker state any of them reports (open, half-open, closed); null: none reports one. */
  readonly breaker: 'closed' | 'open' | 'half-open' | null;
  /** HTTP attempts and 2xx answers of the last minutes, summed over its instances; null: none reports them. */
  readonly recent: {
    readonly windowMs: number;
    readonly attempts: number;
    readonly delivered: number;
  } | null;
}

const BREAKER_RANK = { closed: 0, 'half-open': 1, open: 2 } as const;

/**
 * The live instances' latest reports: the last record per instance, without tombstoned ones
 * (stopped cleanly), stale ones (silent for three periods: killed or frozen) or unreadable ones.
 */
export async function readInstanceStatuses(
  kafka: CatalogKafka,
  nowMs = Date.now(),
): Promise<InstanceStatus[]> {
  let records: Awaited<ReturnType<typeof readTopic>>;
  try {
    records = await readTopic(kafka, { topic: INSTANCE_STATUS_TOPIC, purpose: 'instances' });
  } catch (err) {
    if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return [];
    throw err;
  }
  return foldInstanceStatuses(records, nowMs);
}

/** The last record per instance, tombstoned, stale and unreadable ones left out. */
export function foldInstanceStatuses(
  records: readonly { readonly key: string | null; readonly value: Buffer | null }[],
  nowMs: number,
): InstanceStatus[] {
  const latest = new Map<string, InstanceStatus | null>();
  for (const r of records) {
    if (r.key === null) continue;
    latest.set(r.key, r.value === null ? null : parseStatus(r.value));
  }
  return [...latest.values()].filter((s): s is InstanceStatus => s !== null && !isInstanceStale(s, nowMs));
}

/** The reports folded per subscriber name. */
export function placements(statuses: readonly InstanceStatus[]): Map<string, SubscriberPlacement> {
  const out = new Map<string, Mutable<SubscriberPlacement>>();
  for (const status of [...statuses].sort((a, b) => a.instance.localeCompare(b.instance)))
    for (const s of status.subscribers) {
      const p = out.get(s.name) ?? {
        instances: [],
        failed: [],
        oldestUnsettledAtMs: null,
        breaker: null,
        recent: null,
      };
      out.set(s.name, p);
      if (s.state === 'failed') {
        p.failed.push({ instance: status.instance, error: s.error ?? 'failed' });
        continue;
      }
      p.instances.push(status.instance);
      if (
        s.breaker !== undefined &&
        (p.breaker === null || BREAKER_RANK[s.breaker] > BREAKER_RANK[p.breaker])
      )
        p.breaker = s.breaker;
      if (s.recent !== undefined)
        p.recent = {
          windowMs: Math.max(p.recent?.windowMs ?? 0, s.recent.windowMs),
          attempts: (p.recent?.attempts ?? 0) + s.recent.attempts,
          delivered: (p.recent?.delivered ?? 0) + s.recent.delivered,
        };
      const at = s.oldestUnsettledAt === null ? null : Date.parse(s.oldestUnsettledAt);
      if (at !== null && (p.oldestUnsettledAtMs === null || at < p.oldestUnsettledAtMs))
        p.oldestUnsettledAtMs = at;
    }
  return out;
}

type Mutable<T> = {
  -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K];
};

function parseStatus(value: Buffer): InstanceStatus | null {
  try {
    const parsed = InstanceStatus.safeParse(JSON.parse(value.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A record that some running instance cannot read, and would run from an older one instead. */
export interface UnreadableRecord {
  readonly subscriber: string;
  readonly version: number;
  /** The definition fields that need that version. */
  readonly fields: readonly string[];
  /** The running instances that do not read it, sorted. */
  readonly instances: readonly string[];
}

/**
 * The records to write that a running instance could not read: it would keep the last record it
 * read of that subscriber (and, for a new one, not run it), deaf to the new fields. Pure.
 */
export function unreadableRecords(
  records: readonly Pick<SubscriberRecord, 'version' | 'definition'>[],
  statuses: readonly InstanceStatus[],
): UnreadableRecord[] {
  return records.flatMap((record) => {
    const deaf = statuses.filter((s) => !recordVersionsOf(s).includes(record.version));
    if (deaf.length === 0) return [];
    const readable = Math.min(...deaf.map((s) => Math.max(...recordVersionsOf(s))));
    return [
      {
        subscriber: record.definition.name,
        version: record.version,
        fields: fieldsNewerThan(record.definition, readable),
        instances: deaf.map((s) => s.instance).sort(),
      },
    ];
  });
}
