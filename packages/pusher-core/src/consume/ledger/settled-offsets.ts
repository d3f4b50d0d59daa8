/**
 * What a member settled of one partition: every record before `before`, and the offsets in
 * `ahead` beyond it. Settled is a fact about a record (its outcome is durable): a lane started
 * with records whose copy is already downstream passes over them instead of delivering them again.
 */
export interface SettledOffsets {
  readonly before: number;
  readonly ahead: readonly number[];
}

/** What a lane settled: its prefix, and the settled offsets beyond it from `ahead`. */
export function settledFrom(before: number, ahead: Iterable<number>): SettledOffsets {
  return { before, ahead: [...ahead].filter((o) => o > before).sort((x, y) => x - y) };
}
