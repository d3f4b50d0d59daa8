/**
 * What a member settled of one partition: every record before `before`, and the offsets in
 * `ahead` at or beyond it (`before` is where the prefix stops, not a record known unsettled).
 * Settled is a fact about a record (its outcome is durable): a lane started with records whose
 * copy is already downstream, or that the member's revoked lane settled, passes over them.
 */
export interface SettledOffsets {
  readonly before: number;
  readonly ahead: readonly number[];
}

/** What a lane settled: its prefix, and the settled offsets at or beyond it from `ahead`, once each. */
export function settledFrom(before: number, ahead: Iterable<number>): SettledOffsets {
  return { before, ahead: [...new Set(ahead)].filter((o) => o >= before).sort((x, y) => x - y) };
}

/** Both facts at once: the longer prefix, and every offset either says is settled beyond it. */
export function mergedSettled(a: SettledOffsets, b: SettledOffsets): SettledOffsets {
  return settledFrom(Math.max(a.before, b.before), [...a.ahead, ...b.ahead]);
}
