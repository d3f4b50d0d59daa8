import type { RecordLocation } from '@hookstream/contracts';
import type { LedgerLine } from './ledger.ts';

// What `hookstream ledger` asks and answers, shared by the replay service that reads Kafka and
// the tools that show it (the CLI, the console).

export interface LedgerQuery {
  readonly eventId: string;
  /** Where events are published: scanned for ce_id when the attempt log knows nothing. */
  readonly eventsTopic: string;
  /** Only this subscriber. */
  readonly subscriber?: string | undefined;
  /** Read the attempt log and events topic from this time on (default: all they keep). */
  readonly sinceMs?: number | undefined;
  /**
   * Where the event's record is, when the asker knows it already (the portal's message index).
   * Without `sinceMs`, the attempt log is then read from shortly before that record was written
   * instead of whole: every step of the event came after it.
   */
  readonly knownOrigin?: RecordLocation | undefined;
}

export interface LedgerAnswer {
  readonly eventId: string;
  /** The event's record in the events topic, when known. */
  readonly origin: RecordLocation | null;
  /** Where the location came from. */
  readonly foundIn: 'attempt-log' | 'events-topic' | null;
  /**
   * The event's tenant (its ce_tenant, or what its attempt log entries name); null when it has
   * none, or when its record could not be read (then `origin` is null or the record is gone).
   */
  readonly tenant: string | null;
  readonly subscribers: readonly LedgerLine[];
  /** Subscriber groups left out: no ledger on the event's topic and no attempt for it (they read another topic). */
  readonly otherGroups: number;
}
