import { isPullDefinition, type SubscriberRecord } from '@hookstream/contracts';
import type { Caller } from './caller.ts';
import { ManagementError } from './errors.ts';
import type { ManagementPorts, PullPort, PullSelection } from './management-ports.ts';
import { notFound, visibleRecord, visibleTo } from './tenant-rules.ts';

/** A lease as asked over the API, its bounds already checked. */
export interface LeaseRequest {
  readonly max: number;
  readonly waitMs: number;
  readonly leaseMs: number;
  /** The HTTP request went away: the long poll ends. */
  readonly signal: AbortSignal;
}

/** A lease's answer: the events as JSON text (each as push would send it), its cursors. */
export interface LeaseGranted {
  readonly lease: { readonly id: string; readonly expiresAt: string } | null;
  readonly events: readonly string[];
  readonly cursors: readonly string[];
}

/**
 * Leases up to `max` of the caller's pull subscriber's events. Its types, tenant and filter apply
 * as for push; the answer waits up to `waitMs` for the first event and has no lease when none came.
 */
export async function leaseEvents(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  ask: LeaseRequest,
): Promise<LeaseGranted> {
  const pull = pullPort(ports);
  const visible = visibleRecord(await ports.catalog.read(), name, caller);
  // A subscriber changed from pull to push stops being served here at once.
  if (!isPullDefinition(visible.definition)) await pull.release(name);
  const record = servableRecord(visible);
  if (record.state.kind !== 'active') {
    // Paused, disabled: this process leaves its group, so a rewind or a resume finds it empty.
    await pull.release(name);
    throw new ManagementError(
      'subscriber_not_active',
      `${name} is ${record.state.kind}: no events are leased until it is resumed`,
    );
  }
  const grant = await pull.lease(record, ask);
  if (grant === null) return { lease: null, events: [], cursors: [] };
  return {
    lease: { id: grant.id, expiresAt: new Date(grant.expiresAtMs).toISOString() },
    events: grant.bodies,
    cursors: grant.cursors,
  };
}

/**
 * Acknowledges the named events of a lease (by cursor, by event id, or the whole lease): they are
 * settled, and the group's ledger moves past its settled prefix. All or nothing: a lease this
 * process did not hand out, an expired one, a cursor it did not hand out or already past, an
 * event it does not hold: 409 and nothing moves.
 */
export async function ackEvents(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  leaseId: string,
  selection: PullSelection,
): Promise<{ readonly acked: number }> {
  const pull = await servedFor(ports, caller, name);
  return { acked: answered(pull.ack(name, leaseId, selection)) };
}

/**
 * Ends the named events' time in a lease early. Without `delayMs` they can be leased again at
 * once; with it they go down the subscriber's retry schedule (a tier, or the DLQ at its ceilings)
 * and come back no sooner than that.
 */
export async function nackEvents(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  leaseId: string,
  selection: PullSelection,
  delayMs: number | null,
): Promise<{ readonly nacked: number }> {
  const pull = await servedFor(ports, caller, name);
  return { nacked: answered(pull.nack(name, leaseId, selection, delayMs)) };
}

function pullPort(ports: ManagementPorts): PullPort {
  if (ports.pull === undefined)
    throw new ManagementError('pull_unavailable', 'this API process does not serve pull subscribers');
  return ports.pull;
}

function servableRecord(record: SubscriberRecord): SubscriberRecord {
  if (!isPullDefinition(record.definition))
    throw new ManagementError(
      'not_pull',
      `${record.definition.name} is a push subscriber: its events go to its url, they are not leased`,
    );
  return record;
}

/**
 * The pull port, once the caller may answer for this subscriber's leases. A subscriber this
 * process serves is checked against the record it serves (no catalog read per ack); any other is
 * looked up, so a tenant hears 404 for what it cannot see, whether served here or not.
 */
async function servedFor(ports: ManagementPorts, caller: Caller, name: string): Promise<PullPort> {
  const pull = pullPort(ports);
  const served = pull.served(name);
  if (served !== undefined) {
    if (!visibleTo(caller, served)) throw notFound(name);
    return pull;
  }
  servableRecord(visibleRecord(await ports.catalog.read(), name, caller));
  return pull;
}

function answered(result: ReturnType<PullPort['ack']>): number {
  if (result.ok) return result.count;
  throw new ManagementError(result.code, result.message);
}
