import type { EventsLane, LaneMode } from './events-lane.ts';
import type { Lane } from './lane.ts';
import type { TierLane } from './tier-lane.ts';

/**
 * The lanes of one group member: those of its current assignment, by partition, and revoked
 * ones whose records have not all ended yet (a record still in flight there must not begin
 * again beside itself in the next assignment's lane).
 */
export class MemberLanes {
  /** Events-topic partitions of the latest assignment. */
  #events = new Map<number, EventsLane>();
  /** Retry-tier partitions of the latest assignment, by `topic:partition`. */
  #tiers = new Map<string, TierLane>();
  readonly #revoked = new Set<Lane>();

  addEvents(lane: EventsLane): void {
    this.#events.set(lane.partition, lane);
  }

  addTier(lane: TierLane): void {
    this.#tiers.set(`${lane.topic}:${lane.partition}`, lane);
  }

  events(partition: number): EventsLane | undefined {
    return this.#events.get(partition);
  }

  tier(topic: string, partition: number): TierLane | undefined {
    return this.#tiers.get(`${topic}:${partition}`);
  }

  /** The lanes of the current assignment, events first. */
  current(): Lane[] {
    return [...this.#events.values(), ...this.#tiers.values()];
  }

  /** Where each events partition gets its records. */
  modes(): Map<number, LaneMode> {
    return new Map([...this.#events].map(([partition, lane]) => [partition, lane.mode]));
  }

  /** Every current lane takes nothing more, and the waits of its records end now. */
  holdAll(): void {
    for (const lane of this.current()) lane.hold(true);
  }

  /**
   * The partitions may move: every lane stops, and nothing more is committed for them.
   * `abort`: the waits of their records in flight end now (abandoned); without it they go on,
   * and the caller ends them with `hold(true)` when it can wait no longer.
   */
  revoke(abort: boolean): void {
    for (const lane of this.current()) {
      lane.hold(abort);
      this.#revoked.add(lane);
      void lane.idle().then(() => this.#revoked.delete(lane));
    }
    this.#events = new Map();
    this.#tiers = new Map();
  }

  /** Once the lanes revoked so far have no record in flight. */
  async revokedIdle(): Promise<void> {
    await Promise.all([...this.#revoked].map((lane) => lane.idle()));
  }

  /** Once no lane, current or revoked, has a record in flight. */
  async idle(): Promise<void> {
    await Promise.all([...this.current(), ...this.#revoked].map((lane) => lane.idle()));
  }

  /** Per topic, the Kafka timestamp of the oldest record held unsettled. */
  oldestUnsettled(): Map<string, number> {
    const oldest = new Map<string, number>();
    for (const lane of this.current()) {
      const ts = lane.oldestUnsettled();
      if (ts === null) continue;
      const seen = oldest.get(lane.topic);
      if (seen === undefined || ts < seen) oldest.set(lane.topic, ts);
    }
    return oldest;
  }
}
