import { subscriberGroupId } from '@hookstream/contracts';
import { carriedRewind, type GroupOffsetCommit, type KafkaAdmin, type LedgerRewind } from '@hookstream/kafka';
import { auditRecordOf } from './audit-records.ts';
import { CatalogError } from './errors.ts';
import {
  type PartitionRewind,
  planRewind,
  type RewindPlan,
  type RewindReading,
  type RewindTarget,
} from './rewind-plan.ts';
import { changeSubscriberState, knownSubscriber, type StateChangeContext } from './state-change.ts';

/** How long a rewind waits for the fleet to leave the paused subscriber's group, unless told. */
const GROUP_EMPTY_MS = 60_000;

export interface RewindRequest {
  readonly name: string;
  readonly target: RewindTarget;
  /** As the operator wrote it, for the audit record. */
  readonly targetText: string;
  readonly dryRun: boolean;
  readonly eventsTopic: string;
  /** Who asks: in the pause's state and the audit record. */
  readonly by: string;
  readonly now: Date;
}

/** A state change's context, and the admin that reads and moves the ledger. */
export interface RewindContext extends StateChangeContext {
  readonly admin: KafkaAdmin;
  /** Whether the subscriber's group had no member left within `timeoutMs`. */
  readonly groupEmptied: (name: string, timeoutMs: number) => Promise<boolean>;
  /** How long to wait for the fleet to leave the group (default 60 s). */
  readonly releaseTimeoutMs?: number;
}

export interface RewindResult {
  readonly name: string;
  readonly plan: RewindPlan;
  /** False for a dry run, or when no partition moves. */
  readonly applied: boolean;
  /** Whether the subscriber was paused for the move. */
  readonly pausedForIt: boolean;
  /**
   * Paused for it: whether it was resumed after (false: its state changed meanwhile, a disable or
   * another pause, and was left as it is).
   */
  readonly resumed?: boolean;
}

/**
 * Moves a subscriber's ledger back on the events topic, so the fleet delivers again from there
 * (ids unchanged). Kafka refuses offsets of a group with members, so an active subscriber is
 * paused (the fleet leaves its group), moved, and resumed; a paused or disabled one is moved and
 * stays as it is. Records already waiting in its retry tiers go on as they are. The move is
 * planned again once the group is empty, from the ledger the fleet committed as it left. Each
 * moved partition's commit carries the rewind's mark (who, when, and the ledger it moved back
 * from), so the fleet's attempt log says which deliveries the rewind caused.
 */
export async function rewindSubscriber(
  context: RewindContext,
  request: RewindRequest,
): Promise<RewindResult> {
  const record = knownSubscriber(await context.catalog.read(), request.name);
  const planned = planRewind(request.target, (await readings(context.admin, request)).readings);
  const moves = (plan: RewindPlan) => plan.partitions.some((p) => p.from !== null && p.from !== p.to);
  if (request.dryRun || !moves(planned))
    return { name: request.name, plan: planned, applied: false, pausedForIt: false };
  const active = record.state.kind === 'active';
  const reason = `rewind to ${request.targetText}`;
  if (active)
    await changeSubscriberState(context, {
      action: 'pause',
      name: request.name,
      by: request.by,
      reason,
      eventsTopic: request.eventsTopic,
      now: request.now,
    });
  let plan: RewindPlan;
  try {
    const waitMs = context.releaseTimeoutMs ?? GROUP_EMPTY_MS;
    if (!(await context.groupEmptied(request.name, waitMs)))
      throw new CatalogError(
        'GROUP_IN_USE',
        `${request.name}: its group still has members after ${waitMs / 1000} s (is an older pusher running it?); nothing moved`,
        true,
      );
    const read = await readings(context.admin, request);
    plan = planRewind(request.target, read.readings);
    await context.admin.commitOffsets(
      subscriberGroupId(request.name),
      request.eventsTopic,
      rewindCommits(plan, read.marks, request),
    );
    // The chain runs through the record as it is now (paused for the rewind, or changed while
    // the group emptied), not as it was when the rewind began.
    const current = knownSubscriber(await context.catalog.read(), request.name);
    await context.audit?.trail.write([
      auditRecordOf({
        actor: context.audit.actor,
        action: 'subscriber.rewound',
        subscriber: request.name,
        before: current,
        after: current,
        detail: {
          to: request.targetText.slice(0, 200),
          eventsTopic: request.eventsTopic,
          resend: plan.resend,
          partitions: plan.partitions.slice(0, 100).map(describeMove),
        },
        now: request.now,
      }),
    ]);
  } catch (err) {
    if (active) await resumeOwnPause(context, request, reason).catch(() => undefined);
    throw err;
  }
  const resumed = active ? await resumeOwnPause(context, request, reason) : null;
  return {
    name: request.name,
    plan,
    applied: true,
    pausedForIt: active,
    ...(resumed === null ? {} : { resumed }),
  };
}

/**
 * Resumes the subscriber only if the pause in effect is still the one this rewind wrote: a
 * disable (410, sustained failure) or an operator's pause made meanwhile stays. False: it was
 * left as it is.
 */
async function resumeOwnPause(
  context: RewindContext,
  request: RewindRequest,
  reason: string,
): Promise<boolean> {
  const state = knownSubscriber(await context.catalog.read(), request.name).state;
  if (state.kind !== 'paused' || state.reason !== reason || state.by !== request.by) return false;
  await changeSubscriberState(context, {
    action: 'resume',
    name: request.name,
    by: request.by,
    eventsTopic: request.eventsTopic,
    now: request.now,
  });
  return true;
}

/**
 * The commit of each partition with a ledger. A moved one carries this rewind's mark up to the
 * ledger it moved back from, or up to an earlier rewind's end when that range was not read yet
 * (the mark names the latest rewind: one mark per partition). One that does not move keeps an
 * earlier rewind's mark it is still in.
 */
export function rewindCommits(
  plan: RewindPlan,
  marks: ReadonlyMap<number, LedgerRewind>,
  request: RewindRequest,
): GroupOffsetCommit[] {
  return plan.partitions.flatMap((p): GroupOffsetCommit[] => {
    if (p.from === null) return [];
    const earlier = carriedRewind(marks.get(p.partition), p.to);
    const rewind: LedgerRewind | null =
      p.to < p.from
        ? {
            untilOffset: Math.max(p.from, earlier?.untilOffset ?? 0),
            atMs: request.now.getTime(),
            by: request.by,
          }
        : earlier;
    const offset = String(p.to);
    return [
      rewind === null ? { partition: p.partition, offset } : { partition: p.partition, offset, rewind },
    ];
  });
}

/** `2: 120 → 100` */
export function describeMove(p: PartitionRewind): string {
  return `${p.partition}: ${p.from ?? 'none'} → ${p.to}`;
}

/** What the plan is made from, and the marks of earlier rewinds the ledger is still in, by partition. */
async function readings(
  admin: KafkaAdmin,
  request: RewindRequest,
): Promise<{ readings: RewindReading[]; marks: Map<number, LedgerRewind> }> {
  const { eventsTopic, target } = request;
  const ranges = await admin.topicOffsets(eventsTopic);
  if (ranges === null)
    throw new CatalogError('BAD_REWIND', `the events topic ${eventsTopic} does not exist`, false);
  const ledger = await admin.committedOffsets(subscriberGroupId(request.name), eventsTopic);
  const committed = new Map(
    ledger.map((c) => [c.partition, c.offset === null || Number(c.offset) < 0 ? null : Number(c.offset)]),
  );
  const marks = new Map(ledger.flatMap((c) => (c.rewind === undefined ? [] : [[c.partition, c.rewind]])));
  const atTime =
    target.kind === 'time'
      ? new Map((await admin.offsetsAt(eventsTopic, target.atMs)).map((o) => [o.partition, Number(o.offset)]))
      : null;
  const lowTimes =
    target.kind === 'time'
      ? new Map(
          (
            await admin.recordSamples(
              eventsTopic,
              ranges.map((r) => ({ partition: r.partition, offset: Number(r.low) })),
            )
          ).map((s) => [s.partition, s.timestampMs]),
        )
      : null;
  const read = ranges.map((r) => ({
    partition: r.partition,
    low: Number(r.low),
    high: Number(r.high),
    committed: committed.get(r.partition) ?? null,
    ...(atTime === null ? {} : { atTime: atTime.get(r.partition) ?? Number(r.high) }),
    ...(lowTimes === null ? {} : { lowTimestampMs: lowTimes.get(r.partition) ?? null }),
  }));
  return { readings: read, marks };
}
