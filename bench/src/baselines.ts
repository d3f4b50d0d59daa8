import type { Baseline, BenchContext } from './report-section.ts';

/** Baselines from earlier sections that exist in this run (a failed section leaves none). */
export function baselinesFrom(ctx: BenchContext, ...ids: readonly [id: string, label: string][]): Baseline[] {
  const out: Baseline[] = [];
  for (const [id, label] of ids) {
    const figure = ctx.figure(id);
    if (figure) out.push({ label, value: figure.value });
  }
  return out;
}
