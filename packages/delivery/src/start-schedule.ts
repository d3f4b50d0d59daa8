/**
 * Even spacing of starts that a late timer does not stretch: each start is due one gap after the
 * previous one was due (or started, when that was later) and may go up to `toleranceMs` early.
 * Spacing from the previous actual start instead adds every timer's lateness to the gap (Node's
 * timers have 1 ms granularity and fire late: about 0.65 ms a job at 100/s, 6 % of the limit).
 * The k-th start is never earlier than k gaps after the first minus the tolerance, and a start
 * later than due restarts the schedule from itself, so idle time is never saved up as a burst.
 */
export class StartSchedule {
  readonly #gapMs: number;
  readonly #toleranceMs: number;
  #due = Number.NEGATIVE_INFINITY;

  constructor(gapMs: number, toleranceMs: number) {
    if (!(gapMs >= 0) || !(toleranceMs >= 0) || toleranceMs > gapMs)
      throw new RangeError(`need 0 <= tolerance <= gap, got gap ${gapMs} and tolerance ${toleranceMs}`);
    this.#gapMs = gapMs;
    this.#toleranceMs = toleranceMs;
  }

  /** Ms to wait before the next start (0: now). */
  waitMs(nowMs: number): number {
    return Math.max(0, this.#due - this.#toleranceMs - nowMs);
  }

  /** Records a start at nowMs (call only once waitMs(nowMs) is 0). */
  started(nowMs: number): void {
    this.#due = Math.max(this.#due, nowMs) + this.#gapMs;
  }
}
