import type { AttemptLogEntry, RecordLocation, SubscriberRecord } from '@hookstream/contracts';
import type { DeadLetter, DlqSelection, LedgerLine } from '@hookstream/replay';
import type {
  PartitionLedger,
  RecordProblem,
  StateChangeResult,
  SubscriberOverview,
  TierStatus,
} from '@hookstream/subscribers';

/** A replay as the console starts it (the shape `hookstream dlq replay` hands the replayer). */
export interface ConsoleReplayRequest {
  readonly subscriber: string;
  readonly selection: DlqSelection;
  readonly again: boolean;
  readonly dryRun: boolean;
  readonly operator: string;
  readonly onProgress?: (done: number, total: number) => void;
  readonly onWarning?: (message: string) => void;
}

export interface ConsoleReplayItem {
  readonly eventId: string | null;
  readonly dlq: string;
  readonly detail: string;
}

/** What a replay did (or, dry, would do). */
export interface ConsoleReplaySummary {
  readonly replayId: string;
  readonly dryRun: boolean;
  readonly topic: string;
  readonly selected: number;
  readonly replayed: readonly ConsoleReplayItem[];
  readonly alreadyReplayed: readonly ConsoleReplayItem[];
  readonly unreplayable: readonly ConsoleReplayItem[];
}

/** Where an event is for every subscriber (`hookstream ledger`). */
export interface ConsoleLedger {
  readonly eventId: string;
  readonly origin: RecordLocation | null;
  readonly foundIn: 'attempt-log' | 'events-topic' | null;
  readonly subscribers: readonly LedgerLine[];
}

/** One subscriber's page: the record, ledger, tiers, DLQ and its latest attempts. */
export interface SubscriberView {
  readonly record: SubscriberRecord;
  readonly ledger: readonly PartitionLedger[] | null;
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
  }): Promise<StateChangeResult>;
  deadLetters(name: string): Promise<DeadLetter[]>;
  replay(request: ConsoleReplayRequest): Promise<ConsoleReplaySummary>;
  ledger(eventId: string): Promise<ConsoleLedger>;
  /** Trace ids holding a span for the event; empty when Jaeger has none or cannot be reached. */
  traceIds(eventId: string): Promise<string[]>;
  catalogue(): Promise<CatalogueEntry[]>;
}
