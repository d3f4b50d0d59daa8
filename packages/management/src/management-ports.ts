import type { PayloadMode } from '@hookstream/api-schemas';
import type {
  AuditRecord,
  InstanceStatus,
  RecordLocation,
  SubscriberDefinition,
  SubscriberRecord,
} from '@hookstream/contracts';
import type { DeadLetter, LedgerAnswer, ReplayRequest, ReplaySummary, TierRecord } from '@hookstream/replay';
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
import type { MessageIndex } from './message-index.ts';
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
  /** `knownOrigin`: where the event's record is, if the index knows (bounds the attempt log read). */
  ledger(eventId: string, knownOrigin?: RecordLocation): Promise<LedgerAnswer>;
  eventTypes(): readonly EventSchemaEntry[];
  readonly audit: { write(records: readonly AuditRecord[]): Promise<void> };
  readAudit(selection: AuditSelection): Promise<{ records: AuditRecord[] }>;
  now(): Date;
  /** Serves pull subscribers' leases in this process; absent: pull routes answer 503 pull_unavailable. */
  readonly pull?: PullPort;
  /** One record of the events topic (a resend's original); null when it is no longer there. */
  readRecordAt(location: RecordLocation): Promise<StoredRecord | null>;
  /**
   * Writes a record to the subscriber's retry tier 1 (a resend, an example): where it landed.
   * A subscriber whose pusher never started has no tier yet: 409 no_retry_tier, nothing written.
   */
  sendToRetryTier(subscriber: string, record: TierRecord): Promise<RecordLocation>;
  /** Encodes example events as the producer does; absent: send-example answers 503 examples_unavailable. */
  readonly examples?: ExampleEncoder;
  /** The portal's message index; absent: the messages reads answer 503 messages_unavailable. */
  readonly messages?: MessageIndex;
  /** How much of a message's data callers may see; absent: DEFAULT_PAYLOAD_MODE. */
  readonly payloads?: PayloadMode;
  /** Decodes an event's value for `full` payloads; absent: such a read answers 503. */
  decodeEvent?(
    value: Buffer,
    type: string,
  ): Promise<
    { readonly kind: 'ok'; readonly data: Readonly<Record<string, unknown>> } | { readonly kind: string }
  >;
}

/** A record as read from a topic: what a resend copies. */
export interface StoredRecord {
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** An event to encode: its envelope as the producer fixes it, and its data. */
export interface ExampleEvent {
  readonly id: string;
  readonly type: string;
  /** The `ce_tenant`; undefined: none. */
  readonly tenant: string | undefined;
  /** RFC 3339. */
  readonly time: string;
  /** The `ce_source`. */
  readonly source: string;
  readonly data: unknown;
}

/**
 * The producer's encoding without its write: the data checked against the type's schema, Avro in
 * the registry's wire format, the CloudEvents headers.
 */
export interface ExampleEncoder {
  encode(event: ExampleEvent): Promise<{ key: string; value: Buffer; headers: Record<string, string> }>;
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
