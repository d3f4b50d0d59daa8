import { EventSelection } from '@hookstream/contracts';
import type { CatalogSnapshot } from '@hookstream/subscribers';
import type { Caller } from './caller.ts';
import { visibleTo } from './tenant-rules.ts';

/** An event type of the catalogue with its schema. */
export interface EventSchemaEntry {
  readonly type: string;
  readonly subject: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** An event type, and which of the caller's subscribers take it. */
export interface EventTypeEntry extends EventSchemaEntry {
  readonly subscribers: readonly string[];
}

/** The catalogue as the caller sees it: every type, naming only the caller's subscribers. Pure. */
export function catalogueFor(
  caller: Caller,
  types: readonly EventSchemaEntry[],
  snapshot: CatalogSnapshot,
): EventTypeEntry[] {
  const records = [...snapshot.subscribers.values()].filter((r) => visibleTo(caller, r));
  return types.map((t) => ({
    ...t,
    subscribers: records
      .filter((r) => EventSelection.of(r.definition).takesType(t.type))
      .map((r) => r.definition.name)
      .sort(),
  }));
}
