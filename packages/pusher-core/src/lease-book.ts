import { randomBytes } from 'node:crypto';

/** How an entry's time in a lease ended. */
export type LeaseEnd =
  | { readonly kind: 'acked'; readonly atMs: number }
  /** `delayMs` null: leasable again at once; else down the retry schedule, not before it. */
  | { readonly kind: 'nacked'; readonly atMs: number; readonly delayMs: number | null }
  | { readonly kind: 'expired'; readonly atMs: number }
  /** Its record's work stopped (a rebalance, a stop): it is no one's any more. */
  | { readonly kind: 'left' };

/** One event waiting to be leased, or leased, until its lease ends. */
export interface LeaseEntry {
  readonly eventId: string;
  /** `<topic>:<partition>:<offset>` of its record. */
  readonly cursor: string;
  /** `<topic>:<partition>` of its record: a lease's cursors are one per such. */
  readonly lane: string;
  /** Its record's offset, for cursor comparisons. */
  readonly offset: bigint;
  /** The body a lease hands out for this attempt number (as push would send it alone). */
  readonly render: (attempt: number) => string;
  /** Attempts made so far: each lease handing it out is one. */
  attempts: number;
  /** Called once per lease end: `end` says how, and the entry is out of the book until offered again. */
  readonly ended: (end: LeaseEnd) => void;
}

/** What a lease hands out. */
export interface Grant {
  readonly id: string;
  readonly expiresAtMs: number;
  /** Each event's body, with its attempt number. */
  readonly bodies: readonly string[];
  /** One per topic-partition of its events: the highest offset it holds there. */
  readonly cursors: readonly string[];
}

/** Which of a lease's events an ack or a nack names. */
export interface LeaseSelection {
  readonly cursors?: readonly string[] | undefined;
  readonly eventIds?: readonly string[] | undefined;
}

/** Why an ack or a nack moved nothing. */
export type LeaseRefusal =
  | 'lease_unknown'
  | 'lease_expired'
  | 'cursor_unknown'
  | 'cursor_past'
  | 'event_not_leased';

export type SelectionResult =
  | { readonly ok: true; readonly count: number }
  | { readonly ok: false; readonly code: LeaseRefusal; readonly message: string };

interface Lease {
  readonly id: string;
  readonly expiresAtMs: number;
  /** Its events not yet acked or nacked. */
  readonly open: Set<LeaseEntry>;
  /** The cursors it handed out, by lane. */
  readonly cursors: ReadonlyMap<string, string>;
  readonly timer: NodeJS.Timeout;
}

/** Leases remembered after they expired or ended, for a clearer refusal than "unknown". */
const ENDED_LEASES_KEPT = 10_000;

/**
 * A pull subscriber's events between its consumer and its pullers: entries wait in order, a
 * lease takes up to `max` of them for `leaseMs`, and an ack, a nack or the lease's expiry ends
 * each one's time in it (`LeaseEntry.ended`). An entry is in one lease at a time, so concurrent
 * pullers get disjoint leases. Entries offered again (an expired lease, a nack) go first.
 */
export class LeaseBook {
  readonly #fresh: LeaseEntry[] = [];
  #freshHead = 0;
  /** Entries offered again: leased before the fresh ones, oldest first. */
  readonly #again: LeaseEntry[] = [];
  readonly #leases = new Map<string, Lease>();
  readonly #leaseOf = new Map<LeaseEntry, Lease>();
  readonly #waiting = new Set<LeaseEntry>();
  /** Ended leases' ids, oldest first (a Set keeps insertion order). */
  readonly #ended = new Set<string>();
  readonly #wakers = new Set<() => void>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Entries waiting for a lease. */
  get available(): number {
    return this.#waiting.size;
  }

  /** Open leases. */
  get leases(): number {
    return this.#leases.size;
  }

  /** `again`: an entry whose last lease ended without an ack; it goes before fresh ones. */
  offer(entry: LeaseEntry, again = false): void {
    this.#waiting.add(entry);
    if (again) this.#again.push(entry);
    else this.#fresh.push(entry);
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
  }

  /**
   * Takes the entry out, wherever it is: waiting, it simply leaves; leased, it leaves its lease
   * (an ack naming it is then refused). Its `ended` is called with `left`.
   */
  withdraw(entry: LeaseEntry): void {
    if (this.#waiting.delete(entry)) {
      entry.ended({ kind: 'left' });
      return;
    }
    const lease = this.#leaseOf.get(entry);
    if (lease === undefined) return;
    this.#leaseOf.delete(entry);
    lease.open.delete(entry);
    if (lease.open.size === 0) this.#close(lease);
    entry.ended({ kind: 'left' });
  }

  /** Resolves once an entry waits, or after `waitMs`, or when the signal aborts. */
  waitForEntries(waitMs: number, signal: AbortSignal): Promise<void> {
    if (this.#waiting.size > 0 || waitMs <= 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      signal.addEventListener('abort', done, { once: true });
      this.#wakers.add(done);
    });
  }

  /** A lease of up to `max` waiting entries for `leaseMs`; null when none waits. */
  lease(max: number, leaseMs: number): Grant | null {
    const taken: LeaseEntry[] = [];
    while (taken.length < max) {
      const entry = this.#next();
      if (entry === null) break;
      taken.push(entry);
    }
    if (taken.length === 0) return null;
    const id = `lease_${randomBytes(12).toString('base64url')}`;
    const expiresAtMs = this.#now() + leaseMs;
    const cursors = new Map<string, LeaseEntry>();
    const bodies = taken.map((entry) => {
      entry.attempts++;
      const top = cursors.get(entry.lane);
      if (top === undefined || top.offset < entry.offset) cursors.set(entry.lane, entry);
      return entry.render(entry.attempts);
    });
    const lease: Lease = {
      id,
      expiresAtMs,
      open: new Set(taken),
      cursors: new Map([...cursors].map(([lane, e]) => [lane, e.cursor])),
      timer: setTimeout(() => this.#expire(lease), leaseMs),
    };
    this.#leases.set(id, lease);
    for (const entry of taken) this.#leaseOf.set(entry, lease);
    return { id, expiresAtMs, bodies, cursors: [...lease.cursors.values()] };
  }

  /** Acknowledges the named events of a lease; all or none (a refusal moves nothing). */
  ack(leaseId: string, selection: LeaseSelection): SelectionResult {
    return this.#end(leaseId, selection, { kind: 'acked', atMs: this.#now() });
  }

  /** Ends the named events' time in the lease early; all or none. */
  nack(leaseId: string, selection: LeaseSelection, delayMs: number | null): SelectionResult {
    return this.#end(leaseId, selection, { kind: 'nacked', atMs: this.#now(), delayMs });
  }

  /** Ends every lease: their entries expire now (a stop). */
  close(): void {
    for (const lease of [...this.#leases.values()]) this.#expire(lease);
  }

  #end(leaseId: string, selection: LeaseSelection, end: LeaseEnd): SelectionResult {
    const lease = this.#leases.get(leaseId);
    if (lease === undefined)
      return this.#ended.has(leaseId)
        ? refused('lease_expired', `${leaseId} has ended (it expired, or all its events were answered)`)
        : refused('lease_unknown', `${leaseId} is not a lease of this subscriber here`);
    const chosen = this.#select(lease, selection);
    if (!chosen.ok) return chosen;
    for (const entry of chosen.entries) {
      lease.open.delete(entry);
      this.#leaseOf.delete(entry);
    }
    if (lease.open.size === 0) this.#close(lease);
    for (const entry of chosen.entries) entry.ended(end);
    return { ok: true, count: chosen.entries.size };
  }

  /** The lease's open entries a selection names; a refusal when it names anything else. */
  #select(
    lease: Lease,
    selection: LeaseSelection,
  ): { ok: true; entries: Set<LeaseEntry> } | Extract<SelectionResult, { ok: false }> {
    const entries = new Set<LeaseEntry>();
    for (const cursor of selection.cursors ?? []) {
      const lane = laneOf(cursor);
      if (lane === null || lease.cursors.get(lane) !== cursor)
        return refused('cursor_unknown', `${cursor} is not a cursor this lease handed out`);
      const top = offsetOf(cursor);
      const covered = [...lease.open].filter((e) => e.lane === lane && e.offset <= top);
      if (covered.length === 0)
        return refused('cursor_past', `the events up to ${cursor} are already answered (or left the lease)`);
      for (const e of covered) entries.add(e);
    }
    if (selection.eventIds !== undefined && selection.eventIds.length > 0) {
      const byId = new Map([...lease.open].map((e) => [e.eventId, e]));
      for (const id of selection.eventIds) {
        const entry = byId.get(id);
        if (entry === undefined)
          return refused('event_not_leased', `${id} is not an unanswered event of this lease`);
        entries.add(entry);
      }
    }
    // Neither named (not an empty list: that names nothing): the whole lease.
    if (selection.cursors === undefined && selection.eventIds === undefined)
      for (const e of lease.open) entries.add(e);
    return { ok: true, entries };
  }

  #expire(lease: Lease): void {
    const open = [...lease.open];
    for (const entry of open) this.#leaseOf.delete(entry);
    lease.open.clear();
    this.#close(lease);
    const atMs = this.#now();
    for (const entry of open) entry.ended({ kind: 'expired', atMs });
  }

  #close(lease: Lease): void {
    clearTimeout(lease.timer);
    this.#leases.delete(lease.id);
    this.#ended.add(lease.id);
    if (this.#ended.size > ENDED_LEASES_KEPT) {
      const oldest = this.#ended.values().next();
      if (!oldest.done) this.#ended.delete(oldest.value);
    }
  }

  /** The next waiting entry: those offered again first, then fresh ones in order. */
  #next(): LeaseEntry | null {
    while (this.#again.length > 0) {
      const entry = this.#again.shift() as LeaseEntry;
      if (this.#waiting.delete(entry)) return entry;
    }
    while (this.#freshHead < this.#fresh.length) {
      const entry = this.#fresh[this.#freshHead++] as LeaseEntry;
      if (this.#waiting.delete(entry)) {
        this.#compact();
        return entry;
      }
    }
    this.#compact();
    return null;
  }

  /** Drops the taken head of the fresh queue once it is long, so it does not grow forever. */
  #compact(): void {
    if (this.#freshHead > 1024 && this.#freshHead * 2 > this.#fresh.length) {
      this.#fresh.splice(0, this.#freshHead);
      this.#freshHead = 0;
    }
  }
}

function refused(code: LeaseRefusal, message: string): Extract<SelectionResult, { ok: false }> {
  return { ok: false, code, message };
}

/** `<topic>:<partition>` of a cursor; null when it is not one. */
function laneOf(cursor: string): string | null {
  const at = cursor.lastIndexOf(':');
  return at <= 0 || !/^\d+$/.test(cursor.slice(at + 1)) ? null : cursor.slice(0, at);
}

function offsetOf(cursor: string): bigint {
  return BigInt(cursor.slice(cursor.lastIndexOf(':') + 1));
}
