import type { AuditRecord, InstanceStatus, SubscriberRecord } from '@hookstream/contracts';
import type { DeadLetter, LedgerAnswer, ReplayRequest, ReplaySummary } from '@hookstream/replay';
import type {
  AuditContext,
  AuditSelection,
  CatalogSnapshot,
  DeleteRequest,
  DeleteResult,
  NoticePublisher,
  RewindRequest,
  RewindResult,
  SecretsKey,
  SubscriberOverview,
} from '@hookstream/subscribers';
import type { EventSchemaEntry } from './catalogue.ts';

/**
 * Everything the operations read and write, behind one interface: Kafka in production
 * (kafkaPorts), fakes in the unit tests, where the rules are pure.
 */
export interface ManagementPorts {
  readonly eventsTopic: string;
  /** Seals managed secrets; undefined: operations that need it answer 503 secrets_key_unavailable. */
  readonly secretsKey: SecretsKey | undefined;
  readonly catalog: {
    read(): Promise<CatalogSnapshot>;
    write(records: readonly SubscriberRecord[]): Promise<void>;
    /**
     * Writes the record only if its revision is still `expected` ('absent': no record); the new
     * revision, or RevisionMismatchError (REVISION_MISMATCH) and nothing changed.
     */
    writeIfRevision(record: SubscriberRecord, expected: string | 'absent'): Promise<string>;
  };
  deleteSubscriber(request: DeleteRequest): Promise<DeleteResult>;
  /** Moves the subscriber's ledger back (pausing an active one meanwhile); audited in `audit`. */
  rewind(request: RewindRequest, audit: AuditContext): Promise<RewindResult>;
  /** For subscriber.enabled when a disabled subscriber is resumed. */
  openPublisher(): Promise<NoticePublisher & { close(): Promise<void> }>;
  overviews(
    records: readonly SubscriberRecord[],
    nowMs: number,
  ): Promise<{ rows: SubscriberOverview[]; headroomError: string | null }>;
  instanceStatuses(): Promise<InstanceStatus[]>;
  readDeadLetters(name: string): Promise<DeadLetter[]>;
  replayDeadLetters(request: ReplayRequest): Promise<ReplaySummary>;
  ledger(eventId: string): Promise<LedgerAnswer>;
  eventTypes(): readonly EventSchemaEntry[];
  readonly audit: { write(records: readonly AuditRecord[]): Promise<void> };
  readAudit(selection: AuditSelection): Promise<{ records: AuditRecord[] }>;
  now(): Date;
}
