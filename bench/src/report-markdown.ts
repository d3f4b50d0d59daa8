import type { BenchReport } from './bench-report.ts';
import { type Figure, ratio } from './report-section.ts';

/** A number as the report prints it: thousands separated, at most one decimal. */
export function formatNumber(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: Math.abs(value) < 100 ? 1 : 0 });
}

const cell = (text: string) => text.replaceAll('|', '\\|');
const row = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;

function figureRows(figure: Figure): string[] {
  const value = `${formatNumber(figure.value)} ${figure.unit}`;
  if (figure.baselines.length === 0) return [row([figure.label, value, '', '', ''])];
  return figure.baselines.map((b, i) =>
    row([
      i === 0 ? figure.label : '',
      i === 0 ? value : '',
      b.label,
      formatNumber(b.value),
      `${ratio(figure.value, b.value).toFixed(2)}×`,
    ]),
  );
}

/** The report as Markdown: the targets first, then one section per benchmark, then the chart. */
export function renderMarkdown(report: BenchReport, chartFile: string, command: string): string {
  const m = report.machine;
  const targets = report.sections.flatMap((s) => s.targets);
  const failed = report.sections.filter((s) => s.error !== null);
  const out: string[] = [
    '# hookstream benchmark report',
    '',
    `Run ${report.startedAt} with \`${command}\` (${report.seconds.toFixed(0)} s). ` +
      `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. ` +
      'Kafka, the registry, Jaeger and Redis run on the same machine, and so does the load generator: ' +
      'figures are of one run, and vary from run to run.',
    '',
    `Loads: ${Object.entries(report.scale)
      .map(([k, v]) => `${k} ${typeof v === 'number' ? formatNumber(v) : v.map(formatNumber).join(',')}`)
      .join(', ')}.`,
    '',
    '## Targets',
    '',
    row(['target', 'measured', 'result']),
    row(['---', '---', '---']),
    ...targets.map((t) => row([t.target, t.measured, t.met ? 'met' : '**missed**'])),
    ...failed.map((s) => row([s.title, `did not run: ${s.error}`, '**missed**'])),
    '',
    `![latency percentiles and throughput](${chartFile})`,
    '',
  ];
  for (const s of report.sections) {
    out.push(`## ${s.title}`, '', s.method, '');
    if (s.error !== null) {
      out.push(`**Failed:** ${s.error}`, '');
      continue;
    }
    out.push(
      row(['figure', 'value', 'baseline (same run)', 'baseline value', 'ratio']),
      row(['---', '---:', '---', '---:', '---:']),
      ...s.figures.flatMap(figureRows),
      '',
    );
    if (s.details) out.push(s.details, '');
    out.push(`_${s.seconds.toFixed(0)} s._`, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
