import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchReport } from './bench-report.ts';
import { renderChartSvg } from './report-chart.ts';
import { renderMarkdown } from './report-markdown.ts';
import { svgToPng } from './report-png.ts';

export interface WrittenReport {
  readonly markdown: string;
  readonly png: string;
}

/**
 * Writes `<timestamp>.md` and `<timestamp>.png` into `dir`, and copies them to `latest.md` and
 * `latest.png` (copies, not links: they survive being zipped or moved).
 */
export async function writeBenchReport(
  report: BenchReport,
  dir: string,
  command: string,
): Promise<WrittenReport> {
  await mkdir(dir, { recursive: true });
  const stamp = report.startedAt.replaceAll(':', '').replace(/\.\d+Z$/, 'Z');
  const base = `bench-${stamp}`;
  const png = join(dir, `${base}.png`);
  const markdown = join(dir, `${base}.md`);
  const title = `hookstream benchmark, ${report.startedAt.slice(0, 16).replace('T', ' ')} UTC, ${report.machine.cpus} cores`;
  await writeFile(
    png,
    await svgToPng(
      renderChartSvg(
        report.sections.map((s) => s.chart),
        title,
      ),
    ),
  );
  await writeFile(markdown, renderMarkdown(report, `${base}.png`, command));
  // latest.md links the timestamped PNG, which sits next to it.
  await copyFile(markdown, join(dir, 'latest.md'));
  await copyFile(png, join(dir, 'latest.png'));
  return { markdown, png };
}
