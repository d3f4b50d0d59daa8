import type { SubscriberState } from '@hookstream/contracts';
import { nameCollisions as collidingNames, publicRecord } from '@hookstream/subscribers';
import type { Caller } from './caller.ts';
import { etagOf } from './etag.ts';
import type { ManagementPorts } from './management-ports.ts';
import { type Page, pageOf } from './pagination.ts';
import { visibleRecord, visibleTo } from './tenant-rules.ts';

/** One subscriber of a list: its state and what is measured of it (null: not measured). */
export interface SubscriberItem {
  readonly name: string;
  readonly tenant: string | null;
  readonly state: SubscriberState;
  readonly lag: number | null;
  readonly oldestUnsettledAgeMs: number | null;
  readonly retentionHeadroomSeconds: number | 'unbounded' | null;
  readonly dlqDepth: number | null;
  readonly breaker: 'closed' | 'open' | 'half-open' | null;
}

/** One subscriber as GET shows it: its record without sealed material, and its ETag. */
export type SubscriberResource = ReturnType<typeof publicRecord> & { readonly etag: string };

/**
 * A page of the caller's subscribers by name. Only the page's subscribers are measured (lag,
 * headroom, DLQ depth), so a page costs the same however many the catalog holds.
 */
export async function listSubscribers(
  ports: ManagementPorts,
  caller: Caller,
  options: { readonly limit: number; readonly cursor?: string | undefined },
): Promise<
  Page<SubscriberItem> & {
    readonly retentionHeadroomError: string | null;
    readonly nameCollisions: readonly string[][];
  }
> {
  const snapshot = await ports.catalog.read();
  // Names of every tenant: the operator's alone to see and to resolve.
  const nameCollisions = caller.scope.kind === 'operator' ? collidingNames(snapshot) : [];
  const mine = [...snapshot.subscribers.values()].filter((r) => visibleTo(caller, r));
  const page = pageOf(mine, (r) => r.definition.name, options);
  const { rows, headroomError } =
    page.items.length === 0
      ? { rows: [], headroomError: null }
      : await ports.overviews(page.items, ports.now().getTime());
  const byName = new Map(rows.map((r) => [r.name, r]));
  const items = page.items.map((record): SubscriberItem => {
    const name = record.definition.name;
    const row = byName.get(name);
    return {
      name,
      tenant: record.definition.tenant ?? null,
      state: record.state,
      lag: row?.lag ?? null,
      oldestUnsettledAgeMs: row?.oldestUnsettledAgeMs ?? null,
      retentionHeadroomSeconds: row?.retentionHeadroomSeconds ?? null,
      dlqDepth: row?.dlqDepth ?? null,
      breaker: row?.breaker ?? null,
    };
  });
  return { items, nextCursor: page.nextCursor, retentionHeadroomError: headroomError, nameCollisions };
}

export async function getSubscriber(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
): Promise<SubscriberResource> {
  const snapshot = await ports.catalog.read();
  const record = visibleRecord(snapshot, name, caller);
  return { ...publicRecord(record), etag: etagOf(snapshot.revisions.get(name) ?? '') };
}
