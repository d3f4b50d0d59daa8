import type {
  AuditRecord,
  InstanceStatus,
  SubscriberDefinition,
  SubscriberRecord,
} from '@hookstream/contracts';
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
import type { TenantQuotas } from './tenant-quotas.ts';
import type { TenantPolicy } from './tenant-rules.ts';

/**
 * Everything the operations read and write, behind one interface: Kafka in production
 * (kafkaPorts), fakes in the unit tests, where the rules are pure.
 */
export interface ManagementPorts {
  readonly eventsTopic: string;
  /** What a tenant may make; absent: DEFAULT_TENANT_QUOTAS. */
  readonly tenantQuotas?: TenantQuotas;
  /** What every tenant's subscriber may do beyond the default; absent: DEFAULT_TENANT_POLICY. */
  readonly tenantPolicy?: TenantPolicy;
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
  /**
   * Commits a new subscriber's start position to its group before its record is written, so
   * nothing published after the write is skipped, whenever it is first consumed.
   */
  commitStart(definition: SubscriberDefinition): Promise<void>;
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
  /** Serves pull subscribers' leases in this process; absent: pull routes answer 503 pull_unavailable. */
  readonly pull?: PullPort;
}

/** Which of a lease's events an ack or a nack names (neither: the whole lease). */
export interface PullSelection {
  readonly cursors?: readonly string[] | undefined;
  readonly eventIds?: readonly string[] | undefined;
}

export type PullAnswer =
  | { readonly ok: true; readonly count: number }
  | {
      readonly ok: false;
      readonly code:
        | 'lease_unknown'
        | 'lease_expired'
        | 'cursor_unknown'
        | 'cursor_past'
        | 'event_not_leased';
      readonly message: string;
    };

/** Where a process keeps its pull subscribers' group members and leases (PullHost). */
export interface PullPort {
  lease(
    record: SubscriberRecord,
    ask: {
      readonly max: number;
      readonly waitMs: number;
      readonly leaseMs: number;
      readonly signal: AbortSignal;
    },
  ): Promise<{
    readonly id: string;
    readonly expiresAtMs: number;
    readonly bodies: readonly string[];
    readonly cursors: readonly string[];
  } | null>;
  ack(name: string, leaseId: string, selection: PullSelection): PullAnswer;
  nack(name: string, leaseId: string, selection: PullSelection, delayMs: number | null): PullAnswer;
  /** The record this process serves the subscriber by; undefined when it serves it not. */
  served(name: string): SubscriberRecord | undefined;
  /** Stops serving the subscriber here (its open leases end). */
  release(name: string): Promise<void>;
}
