import type { SampledIds } from './delivery-spans.ts';

/*
 * The OpenMetrics exposition of the Prometheus exporter's text, with exemplars. The JS exporter
 * (@opentelemetry/exporter-prometheus) writes only the Prometheus text format and keeps no
 * exemplars, and Prometheus reads exemplars only from OpenMetrics. So a scrape that asks for
 * OpenMetrics gets the exporter's text rewritten to it here (the sample lines are the same), and
 * the counters made with exemplarCounter carry on each series the last increment recorded with a
 * sampled span: `# {trace_id="…",span_id="…"} 1 <seconds>`.
 */

export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** One exemplar: the ids of the span of an increment, its value and when (epoch ms). */
interface Exemplar {
  readonly ids: SampledIds;
  readonly value: number;
  readonly atMs: number;
}

/**
 * Exemplars per counter sample name (`…_total`) and series (its labels in a canonical order):
 * the last traced increment of each, so as many as the counter has series.
 */
export class ExemplarBook {
  readonly #bySample = new Map<string, Map<string, Exemplar>>();

  record(
    counterName: string,
    attributes: Readonly<Record<string, string>>,
    ids: SampledIds,
    value: number,
    atMs = Date.now(),
  ): void {
    const sample = counterSampleName(counterName);
    let series = this.#bySample.get(sample);
    if (series === undefined) {
      series = new Map();
      this.#bySample.set(sample, series);
    }
    const labels = Object.entries(attributes).map(([k, v]): [string, string] => [promName(k), v]);
    series.set(seriesKey(labels), { ids, value, atMs });
  }

  /** The exemplar of a sample line's series; its labels as parsed from the line. */
  find(sample: string, labels: readonly (readonly [string, string])[]): Exemplar | undefined {
    const series = this.#bySample.get(sample);
    if (series === undefined) return undefined;
    // The exporter adds the instrumentation scope's labels to every sample; the book has none.
    return series.get(seriesKey(labels.filter(([name]) => !name.startsWith('otel_scope_'))));
  }

  get empty(): boolean {
    return this.#bySample.size === 0;
  }
}

/** An OpenTelemetry name as the exporter writes it (sanitizePrometheusMetricName). */
function promName(name: string): string {
  return name.replace(/[^a-z0-9_]/gi, '_').replace(/_{2,}/g, '_');
}

/** A monotonic counter's sample name: the exporter appends `_total` unless it is there. */
function counterSampleName(name: string): string {
  const sanitized = promName(name);
  return sanitized.endsWith('_total') ? sanitized : `${sanitized}_total`;
}

function seriesKey(labels: readonly (readonly [string, string])[]): string {
  return [...labels]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',');
}

/**
 * Whether a scrape's Accept header prefers OpenMetrics to the Prometheus text format (Prometheus
 * asks for OpenMetrics first by default; curl's `*\/*` gets the text format, as before).
 */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let openMetrics = 0;
  let other = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    let q = 1;
    let version: string | undefined;
    for (const param of params) {
      const [name, value = ''] = param.split('=').map((s) => s.trim());
      if (name === 'q') q = Number(value);
      else if (name === 'version') version = value;
    }
    if (!(q > 0)) continue;
    if (type === 'application/openmetrics-text') {
      if (version === undefined || version === '1.0.0' || version === '0.0.1')
        openMetrics = Math.max(openMetrics, q);
    } else if (type === 'text/plain' || type === 'text/*' || type === '*/*') other = Math.max(other, q);
  }
  return openMetrics > 0 && openMetrics >= other;
}

const METADATA = /^# (HELP|TYPE|UNIT) (\S+)(?: (.*))?$/;

/**
 * The exporter's Prometheus text as OpenMetrics 1.0: a counter family is named without its
 * `_total` (its samples keep it), UNIT lines are left out (OpenMetrics wants the unit to be the
 * name's suffix, and the exporter's units, `{attempt}` or `s`, are not), as are other comments and
 * blank lines; `# EOF` ends it. Sample lines are kept as they are, an exemplar appended to a
 * counter sample whose series has one.
 */
export function toOpenMetrics(prometheusText: string, exemplars: ExemplarBook): string {
  const lines = prometheusText.split('\n');
  const counters = new Set<string>();
  for (const line of lines) {
    const m = METADATA.exec(line);
    if (m?.[1] === 'TYPE' && m[3] === 'counter' && m[2] !== undefined) counters.add(m[2]);
  }
  const out: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = METADATA.exec(line);
      const [, kind, name = '', rest = ''] = m ?? [];
      if (kind === undefined || kind === 'UNIT') continue;
      const family = counters.has(name) && name.endsWith('_total') ? name.slice(0, -'_total'.length) : name;
      // OpenMetrics escapes a double quote in HELP too; the exporter escapes only \ and newlines.
      out.push(`# ${kind} ${family} ${kind === 'HELP' ? rest.replaceAll('"', '\\"') : rest}`);
      continue;
    }
    out.push(exemplars.empty ? line : withExemplar(line, counters, exemplars));
  }
  out.push('# EOF');
  return `${out.join('\n')}\n`;
}

/** A sample line, with its series' exemplar when it is a counter's and has one. */
function withExemplar(line: string, counters: ReadonlySet<string>, exemplars: ExemplarBook): string {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  const name = brace !== -1 && brace < space ? line.slice(0, brace) : line.slice(0, space);
  if (!counters.has(name)) return line;
  const labels = brace !== -1 && brace < space ? parseLabels(line, brace) : [];
  if (labels === null) return line;
  const exemplar = exemplars.find(name, labels);
  if (exemplar === undefined) return line;
  const { traceId, spanId } = exemplar.ids;
  return `${line} # {trace_id="${traceId}",span_id="${spanId}"} ${exemplar.value} ${(exemplar.atMs / 1000).toFixed(3)}`;
}

/** The labels of `name{a="x",b="y"} …` from the brace at `start`; null if malformed. */
function parseLabels(line: string, start: number): [string, string][] | null {
  const labels: [string, string][] = [];
  let i = start + 1;
  while (i < line.length && line[i] !== '}') {
    const eq = line.indexOf('="', i);
    if (eq === -1) return null;
    const name = line.slice(i, eq);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      const c = line[j];
      if (c === '\\') {
        const next = line[++j];
        value += next === 'n' ? '\n' : (next ?? '');
      } else value += c;
    }
    if (j >= line.length) return null;
    labels.push([name, value]);
    i = j + 1;
    if (line[i] === ',') i++;
  }
  return i < line.length ? labels : null;
}
