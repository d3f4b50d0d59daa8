import type { AttemptLogEntry, SubscriberRecord } from '@hookstream/contracts';
import type { LedgerView, StateResult } from '@hookstream/management';
import type { DeadLetter, ReplayRequest, ReplaySummary } from '@hookstream/replay';
import type {
  HeadroomBasis,
  PartitionLedger,
  RecordProblem,
  SubscriberOverview,
  TierStatus,
} from '@hookstream/subscribers';

/**
 * The attempt log holds every subscriber's attempts: a subscriber's page reads only the newest
 * records of each partition (within the hour), or a busy platform's hour would take minutes. A
 * pusher's record holds up to 100 entries (ATTEMPT_BATCH_MAX_ENTRIES), a replay's one.
 */
export const ATTEMPT_LOG_SCAN_PER_PARTITION = 500;

/** One subscriber's page: the record, ledger, tiers, DLQ and its latest attempts. */
export interface SubscriberView {
  readonly record: SubscriberRecord;
  readonly ledger: readonly PartitionLedger[] | null;
  /** The least over the partitions; 'unbounded'; null: not measured (see the error). */
  readonly retentionHeadroomSeconds: number | 'unbounded' | null;
  readonly retentionHeadroomBasis: HeadroomBasis | null;
  readonly retentionHeadroomError: string | null;
  readonly tiers: readonly TierStatus[];
  readonly dlqDepth: number | null;
  /** Newest first. */
  readonly attempts: readonly AttemptLogEntry[];
  /** How far back the attempts were read. */
  readonly attemptsSinceMs: number;
}

/** One event type of the catalogue. */
export interface CatalogueEntry {
  readonly type: string;
  readonly subject: string;
  readonly schema: Readonly<Record<string, unknown>>;
  /** Subscribers whose eventTypes name it or '*'. */
  readonly subscribers: readonly string[];
}

/**
 * Everything the pages read and do, behind one interface: Kafka and Jaeger in production
 * (KafkaConsoleBackend), fakes in the unit tests.
 */
export interface ConsoleBackend {
  readonly eventsTopic: string;
  readonly jaegerUrl: string;
  overview(): Promise<{ subscribers: SubscriberOverview[]; problems: readonly RecordProblem[] }>;
  subscriber(name: string): Promise<SubscriberView>;
  changeState(request: {
    readonly action: 'pause' | 'resume';
    readonly name: string;
    readonly by: string;
    readonly reason?: string;
  }): Promise<StateResult>;
  deadLetters(name: string): Promise<DeadLetter[]>;
  replay(request: ReplayRequest): Promise<ReplaySummary>;
  ledger(eventId: string): Promise<LedgerView>;
  /** Trace ids holding a span for the event; empty when Jaeger has none or cannot be reached. */
  traceIds(eventId: string): Promise<string[]>;
  catalogue(): Promise<CatalogueEntry[]>;
}
