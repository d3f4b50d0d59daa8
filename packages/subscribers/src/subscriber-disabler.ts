import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditActor, AuditRecord, SubscriberDefinition, SubscriberRecord } from '@hookstream/contracts';
import { auditRecordOf } from './audit-records.ts';
import type { CatalogSnapshot } from './catalog-records.ts';
import { CatalogError } from './errors.ts';
import { disabledRecord, recordOfDefinition } from './state-changes.ts';
import { disabledNotice, type NoticePublisher, publishNotice } from './state-notices.ts';

/** Waits before the notice's further tries: a broker restart or a leader move passes in seconds. */
const NOTICE_RETRY_MS = [1000, 3000, 10_000] as const;

/** Why and how hookstream disables one subscriber. */
export interface DisableRequest {
  readonly name: string;
  readonly cause: 'gone' | 'failing';
  /** For people: what the endpoint did (kept to 500 characters). */
  readonly reason: string;
  /** The status that decided it (410), null for sustained failure. */
  readonly status: number | null;
  readonly failingSinceMs: number | null;
  /**
   * A subscriber run from a definition file (`push --config`) may have no catalog record: this
   * definition is then written as its record, disabled, so `subscribers resume` can enable it.
   */
  readonly definition?: SubscriberDefinition;
}

/** The catalog as the disabler uses it (SubscriberCatalog in production). */
export interface DisablerCatalog {
  read(): Promise<CatalogSnapshot>;
  write(records: readonly SubscriberRecord[]): Promise<void>;
}

export interface SubscriberDisablerOptions {
  readonly catalog: DisablerCatalog;
  /** Asked at the first disable only: the producer registers schemas and connects then. */
  readonly publisher: () => Promise<NoticePublisher>;
  readonly eventsTopic: string;
  readonly now?: () => Date;
  /** Waits between the notice's tries (default 1 s, 3 s, 10 s); tests pass short ones. */
  readonly noticeRetryMs?: readonly number[];
  /**
   * Where the disable's audit record goes (AuditTrail in production), and who disables: the
   * pusher, named by its instance. Absent: no audit record (tests of other things).
   */
  readonly audit?: {
    readonly trail: { write(records: readonly AuditRecord[]): Promise<void> };
    readonly actor: AuditActor;
  };
}

/** What became of the notice of a disable that was written. */
export interface NoticeOutcome {
  readonly id: string;
  /** null: published; else why it could not be, after every try (the record stays disabled). */
  readonly error: string | null;
}

/**
 * What a disable did: `written` false when the record was not active (already disabled, paused),
 * and then there is no notice; otherwise the notice's outcome.
 */
export interface DisableResult {
  readonly written: boolean;
  readonly record: SubscriberRecord;
  readonly notice: NoticeOutcome | null;
  /** Why the disable's audit record could not be written; null: written, or none was due. */
  readonly auditError: string | null;
}

/**
 * Disables a subscriber the way an operator's pause does, through its catalog record (state
 * `disabled`, by hookstream, with the reason), so every instance's fleet stops its consumer and
 * the ledger stays; then publishes `subscriber.disabled` onto the notices topic. The record
 * comes first: a notice without the state change would announce something untrue. A failed
 * write throws (nothing changed, delivery goes on); a notice that cannot be published after a
 * few tries is reported in the result, since the subscriber is disabled all the same.
 */
export class SubscriberDisabler {
  readonly #options: SubscriberDisablerOptions;

  constructor(options: SubscriberDisablerOptions) {
    this.#options = options;
  }

  async disable(request: DisableRequest): Promise<DisableResult> {
    const now = this.#options.now?.() ?? new Date();
    const snapshot = await this.#options.catalog.read();
    const current =
      snapshot.subscribers.get(request.name) ??
      (request.definition === undefined ? undefined : recordOfDefinition(request.definition, now));
    if (current === undefined)
      throw new CatalogError(
        'UNKNOWN_SUBSCRIBER',
        `no subscriber "${request.name}" in the catalog to disable`,
        false,
      );
    // Another instance got there first, or an operator paused it meanwhile: nothing to announce.
    if (current.state.kind !== 'active')
      return { written: false, record: current, notice: null, auditError: null };
    const record = disabledRecord(current, { reason: request.reason, cause: request.cause, now });
    await this.#options.catalog.write([record]);
    // A definition file's subscriber had no record before: its audit record says so (before null).
    const auditError = await this.#audit(request, snapshot.subscribers.get(request.name), record, now);
    const notice = disabledNotice(current, record, {
      eventsTopic: this.#options.eventsTopic,
      status: request.status,
      failingSinceMs: request.failingSinceMs,
    });
    const retries = this.#options.noticeRetryMs ?? NOTICE_RETRY_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await publishNotice(await this.#options.publisher(), notice);
        return { written: true, record, notice: { id: notice.id, error: null }, auditError };
      } catch (err) {
        const retryable = (err as { canRetry?: unknown }).canRetry !== false;
        const wait = retries[attempt];
        if (!retryable || wait === undefined)
          return {
            written: true,
            record,
            notice: { id: notice.id, error: err instanceof Error ? err.message : String(err) },
            auditError,
          };
        await sleep(wait);
      }
    }
  }

  /**
   * The disable's audit record, after the record is written. A failure is reported, not thrown:
   * the subscriber is disabled all the same, and a throw would read as "nothing changed".
   */
  async #audit(
    request: DisableRequest,
    before: SubscriberRecord | undefined,
    after: SubscriberRecord,
    now: Date,
  ): Promise<string | null> {
    const audit = this.#options.audit;
    if (audit === undefined) return null;
    try {
      await audit.trail.write([
        auditRecordOf({
          actor: audit.actor,
          action: 'subscriber.disabled',
          subscriber: request.name,
          before,
          after,
          detail: { cause: request.cause, status: request.status, reason: request.reason.slice(0, 500) },
          now,
        }),
      ]);
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }
}
