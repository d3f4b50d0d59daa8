import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumedRecord } from './consumed-record.ts';

/** A paused partition resumes this much before its earliest waiting record is due (the refetch). */
const RESUME_AHEAD_MS = 150;
/**
 * A record due at most this soon waits in place. Short, because a waiting batch holds up the
 * next fetch of every partition led by the same broker.
 */
const HOLD_IN_PLACE_MS = 60;

/** The longest a Node timer can wait (2^31 - 1 ms, 24.8 days); past it a timer fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

export type DueVerdict = 'now' | 'later';

/**
 * Delayed records (retry tiers) without holding a fetch slot. Within a batch, due records start
 * and records not yet due are left begun-but-unsettled, so the committed prefix stops before
 * them; the partition is then paused until the earliest of them is due and fetched again from
 * that prefix. Records settled beyond the prefix are remembered, so the refetch skips them
 * instead of delivering them twice. Jitter makes due times within a tier out of order; this is
 * what keeps a record from waiting for a later-due one ahead of it. The due time comes from the
 * record itself, so a restart or a reassigned partition pauses again on its own; the memory of
 * settled-ahead records is only an optimisation (losing it means a redelivery, never a loss).
 */
export class DueGate {
  readonly #dueAtMs: (record: ConsumedRecord) => number | null;
  readonly #settledAhead = new Map<string, Set<number>>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(dueAtMs: (record: ConsumedRecord) => number | null) {
    this.#dueAtMs = dueAtMs;
  }

  /** Offsets of this partition settled ahead of its prefix; entries below `from` are dropped. */
  settledAhead(topic: string, partition: number, from: number): Set<number> {
    const key = `${topic}:${partition}`;
    let set = this.#settledAhead.get(key);
    if (!set) {
      set = new Set();
      this.#settledAhead.set(key, set);
    }
    for (const offset of set) if (offset < from) set.delete(offset);
    return set;
  }

  /**
   * The latest due time a batch starting now may wait for in place. Fixed per batch: measured
   * from each record instead, a batch would keep finding records due "soon" and walk forward
   * in time while earlier-due records it had set aside grew late.
   */
  horizon(): number {
    return Date.now() + HOLD_IN_PLACE_MS;
  }

  /** Null when the record may start (now, or after a short wait); otherwise its due time. */
  dueLater(record: ConsumedRecord, horizonMs: number): number | null {
    const dueAt = this.#dueAtMs(record);
    return dueAt !== null && dueAt > horizonMs ? dueAt : null;
  }

  /** Waits (briefly) until the record is due; false when stopped first. */
  async waitUntilDue(record: ConsumedRecord, signal: AbortSignal): Promise<boolean> {
    const dueAt = this.#dueAtMs(record);
    if (dueAt === null) return true;
    // Timers may fire a millisecond early; the due time is a promise, so check the clock again.
    try {
      for (let wait = dueAt - Date.now(); wait > 0; wait = dueAt - Date.now())
        await sleep(Math.min(wait, MAX_TIMER_MS), undefined, { signal });
      return true;
    } catch {
      return false;
    }
  }

  /** Pauses the batch's partition until shortly before `dueAtMs`. */
  pauseUntil(pause: () => () => void, dueAtMs: number): void {
    const resume = pause();
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        resume();
      },
      // A due time beyond a timer's reach resumes at the limit, and the refetch pauses again.
      Math.min(Math.max(0, dueAtMs - Date.now() - RESUME_AHEAD_MS), MAX_TIMER_MS),
    );
    this.#timers.add(timer);
  }

  stop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
