/**
 * What a member settled of one partition: every record before `before`, and the offsets in
 * `ahead` beyond it. Settled is a fact about a record (its outcome is durable), so the group's
 * next consumer in the same process (a subscriber rejoining with its new retry tiers) passes over
 * them instead of delivering them again.
 */
export interface SettledOffsets {
  readonly before: number;
  readonly ahead: readonly number[];
}

/** What a lane settled: its prefix, and the settled offsets beyond it from `ahead`. */
export function settledFrom(before: number, ahead: Iterable<number>): SettledOffsets {
  return { before, ahead: [...ahead].filter((o) => o > before).sort((x, y) => x - y) };
}

/** Both together: the later `before`, and what either settled beyond it. */
export function mergeSettled(a: SettledOffsets | null, b: SettledOffsets | null): SettledOffsets | null {
  if (a === null || b === null) return a ?? b;
  const before = Math.max(a.before, b.before);
  const ahead = [...new Set([...a.ahead, ...b.ahead])].filter((o) => o >= before).sort((x, y) => x - y);
  return { before, ahead };
}
