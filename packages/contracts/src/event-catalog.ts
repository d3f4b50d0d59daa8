import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { avroToZod } from './avro-zod.ts';
import { EventTypeName, RESERVED_DATA_FIELDS } from './envelope.ts';

/** Where the event schemas live: `schemas/` at the repository root. */
export const SCHEMAS_DIR = resolve(import.meta.dirname, '../../../schemas');

/** One event type, read from `schemas/<type>.avsc`. */
export interface EventSchema {
  /** The event type name, which is the file name without `.avsc`, e.g. `shipment.updated`. */
  readonly type: EventTypeName;
  /**
   * Registry subject: the record's full Avro name (record name strategy). Every type shares
   * the `events` topic, so `events-value` (topic name strategy) would force one schema on all.
   */
  readonly subject: string;
  /** The parsed .avsc JSON, as registered. */
  readonly avro: Readonly<Record<string, unknown>>;
  /** Validates and normalises data (defaults filled in) into what Avro encodes. */
  readonly validator: z.ZodType;
}

let repositoryCatalog: ReadonlyMap<EventTypeName, EventSchema> | null = null;

/** The catalog of the repository's `schemas/`, read once per process. */
export function repositoryEventCatalog(): ReadonlyMap<EventTypeName, EventSchema> {
  repositoryCatalog ??= loadEventCatalog();
  return repositoryCatalog;
}

/** Reads every `<type>.avsc` in dir; throws naming the file when one is unusable. */
export function loadEventCatalog(dir: string = SCHEMAS_DIR): ReadonlyMap<EventTypeName, EventSchema> {
  const catalog = new Map<EventTypeName, EventSchema>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .sort()) {
    const type = file.slice(0, -'.avsc'.length);
    try {
      catalog.set(type, eventSchema(type, JSON.parse(readFileSync(join(dir, file), 'utf8'))));
    } catch (err) {
      throw new Error(`schemas/${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
  return catalog;
}

function eventSchema(type: string, avro: Record<string, unknown>): EventSchema {
  EventTypeName.parse(type);
  if (avro.type !== 'record' || typeof avro.name !== 'string')
    throw new Error('top level must be a named record');
  const fields = (avro.fields ?? []) as { name?: unknown }[];
  const reserved = fields.filter((f) => (RESERVED_DATA_FIELDS as readonly unknown[]).includes(f.name));
  if (reserved.length > 0) {
    throw new Error(`top-level field ${String(reserved[0]?.name)} is reserved for the delivery envelope`);
  }
  const subject = typeof avro.namespace === 'string' ? `${avro.namespace}.${avro.name}` : avro.name;
  return { type, subject, avro, validator: avroToZod(avro) };
}
