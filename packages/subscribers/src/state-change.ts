import type { SubscriberRecord } from '@hookstream/contracts';
import { type AuditContext, auditRecordOf } from './audit-records.ts';
import type { CatalogSnapshot } from './catalog-records.ts';
import { CatalogError } from './errors.ts';
import { pausedRecord, resumedRecord } from './state-changes.ts';
import { enabledNotice, type NoticePublisher, publishNotice } from './state-notices.ts';

/** A pause or resume asked by an operator (the CLI's `subscribers pause|resume`, the console's buttons). */
export interface StateChangeRequest {
  readonly action: 'pause' | 'resume';
  readonly name: string;
  /** Who asks: recorded in the paused state and the subscriber.enabled notice. */
  readonly by: string;
  readonly reason?: string | undefined;
  readonly eventsTopic: string;
  readonly now: Date;
}

/** What a state change needs: the catalog, and a publisher opened only when a notice is due. */
export interface StateChangeContext {
  readonly catalog: {
    read(): Promise<CatalogSnapshot>;
    write(records: readonly SubscriberRecord[]): Promise<void>;
  };
  /** Opened for the subscriber.enabled notice only, and closed right after it. */
  readonly openPublisher: () => Promise<NoticePublisher & { close(): Promise<void> }>;
  /** Where a change's audit record goes; absent: none is written (tests of other things). */
  readonly audit?: AuditContext;
}

export interface StateChangeResult {
  readonly name: string;
  readonly changed: boolean;
  readonly record: SubscriberRecord;
  /** The subscriber.enabled notice's id when one was published (a disabled subscriber resumed). */
  readonly published: string | null;
  /** Why the due subscriber.enabled notice could not be published; the record changed all the same. */
  readonly noticeError: string | null;
}

/**
 * Pauses or resumes a subscriber in the catalog. Resuming one hookstream disabled publishes
 * subscriber.enabled onto the notices topic, after the record is written: the notice announces
 * a change that has happened, and one that cannot be published is reported, not thrown. With an
 * audit context, the change's audit record is written after the record; one that cannot be
 * written is thrown (AUDIT_NOT_WRITTEN), after the notice: the change happened, the trail misses it.
 */
export async function changeSubscriberState(
  context: StateChangeContext,
  request: StateChangeRequest,
): Promise<StateChangeResult> {
  const record = knownSubscriber(await context.catalog.read(), request.name);
  const next =
    request.action === 'pause'
      ? pausedRecord(record, { reason: request.reason ?? '', by: request.by, now: request.now })
      : resumedRecord(record, request.now);
  if (next !== null) await context.catalog.write([next]);
  // Written once the change is durable; a failure is thrown after the notice, which is still due.
  let auditError: unknown = null;
  if (next !== null && context.audit !== undefined)
    await context.audit.trail
      .write([
        auditRecordOf({
          actor: context.audit.actor,
          action: request.action === 'pause' ? 'subscriber.paused' : 'subscriber.resumed',
          subscriber: request.name,
          before: record,
          after: next,
          detail: {
            by: request.by.slice(0, 200),
            ...(request.reason ? { reason: request.reason.slice(0, 500) } : {}),
          },
          now: request.now,
        }),
      ])
      .catch((err: unknown) => {
        auditError = err;
      });
  const enabled =
    request.action === 'resume' && record.state.kind === 'disabled'
      ? enabledNotice(record, { eventsTopic: request.eventsTopic, by: request.by, now: request.now })
      : null;
  let noticeError: string | null = null;
  if (enabled !== null) {
    try {
      const publisher = await context.openPublisher();
      try {
        await publishNotice(publisher, enabled);
      } finally {
        await publisher.close();
      }
    } catch (err) {
      noticeError = err instanceof Error ? err.message : String(err);
    }
  }
  if (auditError !== null) throw auditError;
  return {
    name: request.name,
    changed: next !== null,
    record: next ?? record,
    published: enabled !== null && noticeError === null ? enabled.id : null,
    noticeError,
  };
}

/** The subscriber's record, or an error saying why there is none. */
export function knownSubscriber(snapshot: CatalogSnapshot, name: string): SubscriberRecord {
  const record = snapshot.subscribers.get(name);
  if (record !== undefined) return record;
  const problem = snapshot.problems.find((p) => p.key === name);
  throw new CatalogError(
    'UNKNOWN_SUBSCRIBER',
    problem === undefined
      ? `no subscriber "${name}" in the catalog (hookstream subscribers list)`
      : `the record of "${name}" cannot be read: ${problem.error}`,
    false,
  );
}
