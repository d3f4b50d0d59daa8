import type { AuditRecord, DeadLetterEvidence } from '@hookstream/contracts';
import {
  type DlqSelection,
  type LedgerAnswer,
  type ReplayRequest,
  type ReplaySummary,
  selectDeadLetters,
} from '@hookstream/replay';
import { replayAuditRecord } from '@hookstream/subscribers';
import { auditActorOf, type Caller, tenantOf } from './caller.ts';
import { ManagementError } from './errors.ts';
import type { ManagementPorts } from './management-ports.ts';
import { visibleRecord, visibleTo } from './tenant-rules.ts';

/** A dead letter as listed: where it is, what it was, and the pusher's evidence (not the body). */
export interface DeadLetterItem {
  /** `<partition>:<offset>` in the subscriber's DLQ topic. */
  readonly dlq: string;
  readonly eventId: string | null;
  readonly eventType: string | null;
  readonly tenant: string | null;
  readonly deadLetteredAt: string;
  readonly evidence: DeadLetterEvidence | null;
  readonly problem: string | null;
}

/** The caller's subscriber's dead letters the selection names, oldest first (its limit applies). */
export async function listDeadLetters(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  selection: DlqSelection,
): Promise<DeadLetterItem[]> {
  visibleRecord(await ports.catalog.read(), name, caller);
  const letters = selectDeadLetters(await ports.readDeadLetters(name), selection);
  return letters.map((l) => ({
    dlq: `${l.location.partition}:${l.location.offset}`,
    eventId: l.eventId,
    eventType: l.eventType,
    tenant: l.tenant,
    deadLetteredAt: new Date(l.deadLetteredAtMs).toISOString(),
    evidence: l.evidence,
    problem: l.problem,
  }));
}

/**
 * A replay, then its audit record naming the caller's token. One that cannot be written is a
 * warning on the job: the replay happened, and failing the job would say it had not.
 */
export async function replayWithAudit(
  ports: Pick<ManagementPorts, 'replayDeadLetters' | 'catalog' | 'audit' | 'now'>,
  caller: Caller,
  request: ReplayRequest,
): Promise<ReplaySummary> {
  const summary = await ports.replayDeadLetters(request);
  if (summary.dryRun || summary.replayed.length === 0) return summary;
  try {
    const tenant = (await ports.catalog.read()).subscribers.get(summary.subscriber)?.definition.tenant;
    await ports.audit.write([
      replayAuditRecord(summary, {
        actor: auditActorOf(caller),
        operator: request.operator,
        again: request.again,
        tenant,
        now: ports.now(),
      }),
    ]);
  } catch (err) {
    request.onWarning?.(
      `the replay's audit record could not be written: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return summary;
}

type LedgerLine = LedgerAnswer['subscribers'][number];

/** An event's ledger as the caller may see it: counts per state first, then the lines. */
export interface LedgerView {
  readonly eventId: string;
  readonly tenant: string | null;
  readonly origin: LedgerAnswer['origin'];
  /** Where the event was found: the attempt log, or (its entries gone) the events topic. */
  readonly foundIn: LedgerAnswer['foundIn'];
  readonly counts: Readonly<Record<string, number>>;
  readonly subscribers: readonly LedgerLine[];
}

/**
 * Where an event is for each of the caller's subscribers. A tenant asking about another
 * tenant's event (or one without a tenant) is told it is not found, as for an unknown id.
 */
export async function eventLedger(
  ports: ManagementPorts,
  caller: Caller,
  eventId: string,
): Promise<LedgerView> {
  const tenant = tenantOf(caller);
  // A tenant's message the index holds names its record: the ledger query then reads the attempt
  // log from the event's time, not the partition whole.
  const knownOrigin = tenant === undefined ? null : ((await ports.messages?.origin(tenant, eventId)) ?? null);
  const [answer, snapshot] = await Promise.all([
    ports.ledger(eventId, knownOrigin ?? undefined),
    ports.catalog.read(),
  ]);
  if (tenant !== undefined && answer.tenant !== tenant)
    throw new ManagementError('not_found', `no event "${eventId}"`);
  const lines = answer.subscribers.filter((l) => {
    const record = snapshot.subscribers.get(l.subscriber);
    return caller.scope.kind === 'operator' || (record !== undefined && visibleTo(caller, record));
  });
  const counts: Record<string, number> = {};
  for (const l of lines) counts[l.ledger.state] = (counts[l.ledger.state] ?? 0) + 1;
  return {
    eventId,
    tenant: answer.tenant,
    origin: answer.origin,
    foundIn: answer.foundIn,
    counts,
    subscribers: lines,
  };
}

/** The newest `limit` audit records, oldest first; a tenant's own only. */
export async function auditTrailFor(
  ports: ManagementPorts,
  caller: Caller,
  options: { readonly subscriber?: string | undefined; readonly limit: number },
): Promise<AuditRecord[]> {
  const { records } = await ports.readAudit({ subscriber: options.subscriber, tenant: tenantOf(caller) });
  return records.slice(-options.limit);
}
