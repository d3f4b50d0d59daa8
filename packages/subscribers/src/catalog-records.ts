import {
  FILTER_TOO_LARGE,
  filterTooLarge,
  isRegistrationKey,
  NameBinding,
  nameOfBindingKey,
  SUBSCRIBER_RECORD_VERSION,
  SubscriberName,
  SubscriberRecord,
  SubscriberRegistration,
} from '@hookstream/contracts';
import { admits, conditionOf, type KeyState, nextState } from './catalog-revisions.ts';

/** A record of the catalog topic as read (tests build these by hand). */
export interface RawRegistryRecord {
  readonly key: string | null;
  readonly value: Buffer | null;
  /** Where it was, for reports ("partition:offset"); optional. */
  readonly offset?: string;
  /**
   * Its offset in the (one-partition) topic, decimal: a subscriber's revision. Without it the
   * record still applies, but sets no revision, and a conditional record is reported as bad.
   */
  readonly logOffset?: string;
  /** Its headers: `hookstream-if-revision` makes it a conditional write (catalog-revisions.ts). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A conditional write that did not apply: its expected revision was not the one in effect. */
export interface LostWrite {
  readonly key: string;
  /** The losing record's offset. */
  readonly offset: string;
  readonly expected: string;
  /** The revision in effect when it arrived; null when the subscriber had none (deleted). */
  readonly found: string | null;
}

/** A key whose latest record cannot be used; the subscriber keeps its last good record, if any. */
export interface RecordProblem {
  readonly key: string;
  readonly offset: string | null;
  readonly error: string;
}

/** What the catalog topic says now: name → latest record, and what could not be read. */
export interface CatalogSnapshot {
  readonly subscribers: ReadonlyMap<string, SubscriberRecord>;
  readonly problems: readonly RecordProblem[];
  /** Registration keys (`<eventsTopic>/<name>`) of the ledger-lost guard, by subscriber name. */
  readonly registrations: ReadonlyMap<string, readonly string[]>;
  /** When each registration key's subscriber first started (the pusher writes it). */
  readonly registeredAt: ReadonlyMap<string, string>;
  /** Deleted subscribers' names still bound to their tenant (or to none), by name. */
  readonly bindings: ReadonlyMap<string, NameBinding>;
  /**
   * Each subscriber's revision (the offset of the write that set its record in effect), by name:
   * what an ETag carries. A deleted subscriber has none.
   */
  readonly revisions: ReadonlyMap<string, string>;
  /** Conditional writes that lost their race, oldest first (their writers repair the log). */
  readonly lost: readonly LostWrite[];
}

/** A snapshot with each subscriber key's state, for writers that check their own write. */
export interface CatalogFold {
  readonly snapshot: CatalogSnapshot;
  readonly states: ReadonlyMap<string, KeyState>;
}

/**
 * Folds the catalog topic, oldest first, into the latest record per subscriber: a tombstone
 * deletes, a record that fails to parse is reported with its key and does not replace the last
 * good one (a later good record or tombstone clears the report). Registration keys are collected
 * apart. Never throws.
 */
export function foldRegistry(records: Iterable<RawRegistryRecord>): CatalogSnapshot {
  return foldCatalog(records).snapshot;
}

/**
 * foldRegistry, with each subscriber key's revision state. A conditional record (a
 * `hookstream-if-revision` header) applies only when the key's revision is the expected one
 * (catalog-revisions.ts); one that does not is listed in `lost`, not as a problem.
 */
export function foldCatalog(records: Iterable<RawRegistryRecord>): CatalogFold {
  const folder = new CatalogFolder();
  for (const r of records) folder.add(r);
  return folder.fold();
}

/**
 * foldCatalog record by record: `add` takes the next record in log order, `fold` answers the
 * catalog so far as copies, so a later record never changes a snapshot already answered. A
 * follower (LiveCatalog) adds what arrived since its last read instead of folding the log again.
 */
export class CatalogFolder {
  readonly #states = new Map<string, KeyState>();
  readonly #lost: LostWrite[] = [];
  readonly #subscribers = new Map<string, SubscriberRecord>();
  readonly #problems = new Map<string, RecordProblem>();
  readonly #registrations = new Map<string, string[]>();
  readonly #registeredAt = new Map<string, string>();
  readonly #bindings = new Map<string, NameBinding>();

  add(r: RawRegistryRecord): void {
    const problems = this.#problems;
    const offset = r.offset ?? null;
    if (r.key === null) {
      problems.set(`(no key @${offset ?? '?'})`, { key: '', offset, error: 'a record without a key' });
      return;
    }
    const key = r.key;
    const bound = nameOfBindingKey(key);
    if (bound !== null) {
      const binding = r.value === null ? null : parseBinding(r.value, bound);
      if (r.value === null) this.#bindings.delete(bound);
      else if (binding !== null) this.#bindings.set(bound, binding);
      // Unreadable: the last good binding stands (a name is never freed by a bad record).
      if (r.value !== null && binding === null)
        problems.set(key, { key, offset, error: 'the record does not parse as a name binding' });
      else problems.delete(key);
      return;
    }
    if (isRegistrationKey(key)) {
      const name = key.slice(key.lastIndexOf('/') + 1);
      const keys = this.#registrations.get(name) ?? [];
      if (!keys.includes(key)) keys.push(key);
      if (r.value === null) {
        keys.splice(keys.indexOf(key), 1);
        this.#registeredAt.delete(key);
        problems.delete(key);
      } else {
        const at = registrationTime(r.value);
        if (at !== null) {
          this.#registeredAt.set(key, at);
          problems.delete(key);
        }
        // The last good registration (if any) still stands; a pusher with neither refuses.
        else problems.set(key, { key, offset, error: 'the record does not parse as a registration' });
      }
      this.#registrations.set(name, keys);
      return;
    }
    const condition = conditionOf(r.headers, r.logOffset);
    if (condition.kind === 'bad') {
      problems.set(key, { key, offset, error: condition.error });
      return;
    }
    const states = this.#states;
    const before = states.get(key);
    if (condition.kind === 'if' && !admits(before, condition.expected)) {
      const found = before?.kind === 'record' ? before.revision : null;
      // Never undefined here: a conditional record has an offset (conditionOf).
      this.#lost.push({ key, offset: r.logOffset ?? '', expected: condition.expected, found });
      return;
    }
    if (r.value === null) {
      this.#subscribers.delete(key);
      problems.delete(key);
      if (r.logOffset === undefined) states.delete(key);
      else states.set(key, nextState(condition, r.logOffset, true, before));
      return;
    }
    const parsed = parseSubscriberRecord(key, r.value);
    if (parsed.ok) {
      this.#subscribers.set(key, parsed.value);
      problems.delete(key);
      if (r.logOffset === undefined) states.delete(key);
      else states.set(key, nextState(condition, r.logOffset, false, before));
    } else problems.set(key, { key, offset, error: parsed.error });
  }

  fold(): CatalogFold {
    const registrations = new Map<string, string[]>();
    for (const [name, keys] of this.#registrations) if (keys.length > 0) registrations.set(name, [...keys]);
    const revisions = new Map<string, string>();
    for (const [key, state] of this.#states) if (state.kind === 'record') revisions.set(key, state.revision);
    return {
      snapshot: {
        subscribers: new Map(this.#subscribers),
        problems: [...this.#problems.values()],
        registrations,
        registeredAt: new Map(this.#registeredAt),
        bindings: new Map(this.#bindings),
        revisions,
        lost: [...this.#lost],
      },
      states: new Map(this.#states),
    };
  }
}

function parseBinding(value: Buffer, name: string): NameBinding | null {
  try {
    const parsed = NameBinding.safeParse(JSON.parse(value.toString('utf8')));
    return parsed.success && parsed.data.name === name ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The bytes a name binding is written as. */
export function encodeNameBinding(binding: NameBinding): Buffer {
  return Buffer.from(JSON.stringify(NameBinding.parse(binding)), 'utf8');
}

function registrationTime(value: Buffer): string | null {
  try {
    const parsed = SubscriberRegistration.safeParse(JSON.parse(value.toString('utf8')));
    return parsed.success ? parsed.data.registeredAt : null;
  } catch {
    return null;
  }
}

/** One record's value, checked against its key. */
export function parseSubscriberRecord(
  key: string,
  value: Buffer,
): { ok: true; value: SubscriberRecord } | { ok: false; error: string } {
  if (!SubscriberName.safeParse(key).success)
    return { ok: false, error: `key "${key}" is not a subscriber name` };
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch (err) {
    return { ok: false, error: `not JSON: ${(err as Error).message}` };
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > SUBSCRIBER_RECORD_VERSION)
    return {
      ok: false,
      error: `record version ${version} is newer than this code reads (up to ${SUBSCRIBER_RECORD_VERSION}): upgrade it`,
    };
  if (filterTooLarge((json as { definition?: { filter?: unknown } } | null)?.definition?.filter))
    return { ok: false, error: `definition.${FILTER_TOO_LARGE}` };
  const parsed = SubscriberRecord.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      error: parsed.error.issues
        .map((i) => `${i.path.map(String).join('.') || '(record)'}: ${i.message}`)
        .join('; '),
    };
  if (parsed.data.definition.name !== key)
    return { ok: false, error: `the definition is named "${parsed.data.definition.name}", the key "${key}"` };
  return { ok: true, value: parsed.data };
}

/** The bytes a record is written as. */
export function encodeSubscriberRecord(record: SubscriberRecord): Buffer {
  return Buffer.from(JSON.stringify(SubscriberRecord.parse(record)), 'utf8');
}
