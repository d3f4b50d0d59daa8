import { parseRewindTarget, type RewindResult } from '@hookstream/subscribers';
import { auditContextOf, type Caller } from './caller.ts';
import type { ManagementPorts } from './management-ports.ts';
import { visibleRecord } from './tenant-rules.ts';

/** A rewind as asked: where to (an ISO time, `earliest`, or `partition:offset,…`), or only counted. */
export interface RewindAsk {
  readonly to: string;
  readonly dryRun: boolean;
}

/**
 * Moves one of the caller's subscribers' ledger back on the events topic, so its events from
 * there are delivered again with their ids (`rewindSubscriber`: an active subscriber is paused
 * for the move and resumed after). The pause, the resume and the rewind name the caller.
 */
export async function rewind(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  ask: RewindAsk,
): Promise<RewindResult> {
  visibleRecord(await ports.catalog.read(), name, caller);
  const target = parseRewindTarget(ask.to);
  return ports.rewind(
    {
      name,
      target,
      targetText: ask.to,
      dryRun: ask.dryRun,
      eventsTopic: ports.eventsTopic,
      by: caller.id,
      now: ports.now(),
    },
    auditContextOf(ports.audit, caller),
  );
}
