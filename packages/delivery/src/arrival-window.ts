/**
 * At most `limit` requests in any 1-second window as the endpoint sees them. A request reaches the
 * endpoint after it is sent and before its response comes back, so the next request waits until
 * one second after the response to the request `limit` places back (or, while that one is still
 * in flight, after its send, the best that is known). Latency jitter and pauses of the event loop
 * then cannot squeeze limit+1 arrivals into one second, while a fast endpoint loses only its
 * latency once per second.
 */
export class ArrivalWindow {
  readonly #limit: number;
  readonly #sent: number[];
  readonly #done: (number | null)[];
  #next = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${limit}`);
    this.#limit = limit;
    this.#sent = new Array<number>(limit).fill(Number.NEGATIVE_INFINITY);
    this.#done = new Array<number | null>(limit).fill(Number.NEGATIVE_INFINITY);
  }

  /** Ms to wait before the next request may be sent (0: now). */
  waitMs(nowMs: number): number {
    const i = this.#next;
    const reference = this.#done[i] ?? this.#sent[i] ?? Number.NEGATIVE_INFINITY;
    return Math.max(0, reference + 1000 - nowMs);
  }

  /** Records a send; call done(slot) with the returned slot when its response is in. */
  sent(nowMs: number): number {
    const slot = this.#next;
    this.#sent[slot] = nowMs;
    this.#done[slot] = null;
    this.#next = (slot + 1) % this.#limit;
    return slot;
  }

  done(slot: number, nowMs: number, sentAtMs: number): void {
    // A slot reused since (limit later requests went out) belongs to a newer request.
    if (this.#sent[slot] === sentAtMs) this.#done[slot] = nowMs;
  }
}
