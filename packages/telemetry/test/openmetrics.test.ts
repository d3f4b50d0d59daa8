import { afterEach, describe, expect, it } from 'vitest';
import { exemplarCounter, type MetricsServer, serveMetrics, startMetrics } from '../src/metrics.ts';
import { ExemplarBook, toOpenMetrics, wantsOpenMetrics } from '../src/openmetrics.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';
const OPENMETRICS = 'application/openmetrics-text';

/**
 * Checks a text against the OpenMetrics 1.0 text format as strictly as Prometheus' parser and
 * more: metadata before a family's samples, each family in one block, a counter's samples named
 * `<family>_total`, a histogram's `_bucket`/`_count`/`_sum`, UNIT the name's suffix, exemplars only
 * on counter and bucket samples, label sets of at most 128 characters, `# EOF` last and nothing
 * after it. Returns the problems found.
 */
function openMetricsProblems(text: string): string[] {
  const problems: string[] = [];
  if (!text.endsWith('# EOF\n')) problems.push('does not end with "# EOF\\n"');
  const lines = text.slice(0, -'# EOF\n'.length).split('\n');
  if (lines.at(-1) === '') lines.pop();
  const types = new Map<string, string>();
  const seen = new Set<string>();
  let family: string | undefined;
  const label = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
  const labels = `\\{(?:${label}(?:,${label})*)?\\}`;
  const number = '(?:[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?Inf|NaN)';
  const sample = new RegExp(
    `^([a-zA-Z_:][a-zA-Z0-9_:]*)(${labels})? (${number})(?: (${number}))?(?: # (${labels}) (${number})(?: (${number}))?)?$`,
  );
  for (const [n, line] of lines.entries()) {
    const at = `line ${n + 1} "${line}"`;
    const meta = /^# (HELP|TYPE|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      if (name !== family) {
        if (seen.has(name)) problems.push(`${at}: family ${name} interleaved`);
        seen.add(name);
        family = name;
      }
      if (kind === 'TYPE') {
        if (
          ![
            'counter',
            'gauge',
            'histogram',
            'gaugehistogram',
            'summary',
            'info',
            'stateset',
            'unknown',
          ].includes(rest)
        )
          problems.push(`${at}: unknown type`);
        types.set(name, rest);
      }
      if (kind === 'UNIT' && rest !== '' && !name.endsWith(`_${rest}`))
        problems.push(`${at}: unit not a suffix`);
      if (kind === 'HELP' && /(^|[^\\])"/.test(rest)) problems.push(`${at}: unescaped quote in HELP`);
      continue;
    }
    if (line.startsWith('#') || line === '') {
      problems.push(`${at}: not a sample, metadata or # EOF`);
      continue;
    }
    const m = sample.exec(line);
    if (!m) {
      problems.push(`${at}: malformed sample`);
      continue;
    }
    const [, name = '', , , , exemplarLabels] = m;
    const type = family === undefined ? undefined : types.get(family);
    const suffix = family !== undefined && name.startsWith(family) ? name.slice(family.length) : null;
    const allowed: Record<string, string[]> = {
      counter: ['_total', '_created'],
      gauge: [''],
      histogram: ['_bucket', '_count', '_sum', '_created'],
      unknown: [''],
    };
    if (type === undefined || suffix === null || !(allowed[type] ?? []).includes(suffix))
      problems.push(`${at}: sample not of its family ${family} (${type})`);
    if (exemplarLabels !== undefined) {
      if (!(suffix === '_total' || suffix === '_bucket')) problems.push(`${at}: exemplar on ${suffix}`);
      const chars = [...exemplarLabels.matchAll(/([a-zA-Z_]\w*)="([^"]*)"/g)].reduce(
        (sum, [, k = '', v = '']) => sum + k.length + v.length,
        0,
      );
      if (chars > 128) problems.push(`${at}: exemplar labels over 128 characters`);
    }
  }
  return problems;
}

describe('wantsOpenMetrics', () => {
  it.each([
    // Prometheus 2.x's default scrape Accept header, and 3.x's.
    [
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      true,
    ],
    [
      'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
      true,
    ],
    [OPENMETRICS, true],
    // A scraper configured for the text format, curl, a browser, none.
    ['text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5', false],
    ['*/*', false],
    ['text/html,application/xhtml+xml,*/*;q=0.8', false],
    [undefined, false],
    [`${OPENMETRICS};q=0`, false],
    [`${OPENMETRICS};version=2.0.0`, false],
  ])('%s: %s', (accept, expected) => {
    expect(wantsOpenMetrics(accept)).toBe(expected);
  });
});

describe('toOpenMetrics', () => {
  const PROMETHEUS = [
    '# HELP target_info Target metadata',
    '# TYPE target_info gauge',
    'target_info{service_name="p"} 1',
    '# HELP hookstream_pusher_first_attempt_failures_total First "attempts" that failed',
    '# UNIT hookstream_pusher_first_attempt_failures_total {attempt}',
    '# TYPE hookstream_pusher_first_attempt_failures_total counter',
    'hookstream_pusher_first_attempt_failures_total{subscriber="a b",outcome_class="terminal",status_class="4xx",otel_scope_name="hookstream"} 2',
    'hookstream_pusher_first_attempt_failures_total{subscriber="c\\"d",outcome_class="retryable",status_class="5xx",otel_scope_name="hookstream"} 1',
    '',
    '# HELP hookstream_x_seconds A histogram',
    '# UNIT hookstream_x_seconds s',
    '# TYPE hookstream_x_seconds histogram',
    'hookstream_x_seconds_count{otel_scope_name="hookstream"} 1',
    'hookstream_x_seconds_sum{otel_scope_name="hookstream"} 0.5',
    'hookstream_x_seconds_bucket{otel_scope_name="hookstream",le="1"} 1',
    'hookstream_x_seconds_bucket{otel_scope_name="hookstream",le="+Inf"} 1',
    '# no registered metrics',
  ].join('\n');

  it('renames counter families, drops units and comments, ends with # EOF, and adds the exemplars kept', () => {
    const book = new ExemplarBook();
    book.record(
      'hookstream.pusher.first_attempt.failures',
      { subscriber: 'a b', outcome_class: 'terminal', status_class: '4xx' },
      { traceId: TRACE, spanId: SPAN },
      1,
      1_765_100_000_123,
    );
    const text = toOpenMetrics(PROMETHEUS, book);
    expect(openMetricsProblems(text)).toEqual([]);
    expect(text.split('\n')).toEqual([
      '# HELP target_info Target metadata',
      '# TYPE target_info gauge',
      'target_info{service_name="p"} 1',
      '# HELP hookstream_pusher_first_attempt_failures First \\"attempts\\" that failed',
      '# TYPE hookstream_pusher_first_attempt_failures counter',
      `hookstream_pusher_first_attempt_failures_total{subscriber="a b",outcome_class="terminal",status_class="4xx",otel_scope_name="hookstream"} 2 # {trace_id="${TRACE}",span_id="${SPAN}"} 1 1765100000.123`,
      'hookstream_pusher_first_attempt_failures_total{subscriber="c\\"d",outcome_class="retryable",status_class="5xx",otel_scope_name="hookstream"} 1',
      '# HELP hookstream_x_seconds A histogram',
      '# TYPE hookstream_x_seconds histogram',
      'hookstream_x_seconds_count{otel_scope_name="hookstream"} 1',
      'hookstream_x_seconds_sum{otel_scope_name="hookstream"} 0.5',
      'hookstream_x_seconds_bucket{otel_scope_name="hookstream",le="1"} 1',
      'hookstream_x_seconds_bucket{otel_scope_name="hookstream",le="+Inf"} 1',
      '# EOF',
      '',
    ]);
  });

  it('finds a series whose label values need escaping', () => {
    const book = new ExemplarBook();
    const ids = { traceId: TRACE, spanId: SPAN };
    book.record(
      'hookstream.pusher.first_attempt.failures',
      { subscriber: 'c"d', outcome_class: 'retryable', status_class: '5xx' },
      ids,
      1,
    );
    const lines = toOpenMetrics(PROMETHEUS, book).split('\n');
    expect(lines.filter((l) => l.includes('# {'))).toEqual([expect.stringContaining('subscriber="c\\"d"')]);
  });

  it('is a valid exposition without any exemplar, or any metric', () => {
    expect(openMetricsProblems(toOpenMetrics(PROMETHEUS, new ExemplarBook()))).toEqual([]);
    expect(toOpenMetrics('# no registered metrics', new ExemplarBook())).toBe('# EOF\n');
  });
});

describe('a scrape over HTTP', () => {
  let server: MetricsServer | undefined;
  afterEach(() => server?.close());

  it('answers OpenMetrics with exemplars to a scraper that asks for it, and the text format as before to others', async () => {
    const metrics = await startMetrics({ serviceName: 'hookstream-test' });
    const failures = exemplarCounter(metrics.meter, 'hookstream.test.failures', {
      description: 'Failures',
      unit: '{attempt}',
    });
    const plainCounter = metrics.meter.createCounter('hookstream.test.deliveries', {
      description: 'Deliveries',
    });
    const histogram = metrics.meter.createHistogram('hookstream.test.duration.seconds', {
      unit: 's',
      advice: { explicitBucketBoundaries: [0.1, 1] },
    });
    const gauge = metrics.meter.createObservableGauge('hookstream.test.depth');
    gauge.addCallback((r) => r.observe(4, { subscriber: 'billing' }));
    const terminal = { subscriber: 'billing', outcome_class: 'terminal', status_class: '4xx' };
    const retryable = { subscriber: 'billing', outcome_class: 'retryable', status_class: '5xx' };
    failures.add(1, terminal, { traceId: TRACE, spanId: SPAN });
    // The last traced increment is the exemplar; an untraced one leaves it as it was.
    failures.add(1, terminal, { traceId: TRACE.replace('0af', '1af'), spanId: SPAN });
    failures.add(1, terminal);
    failures.add(1, retryable);
    plainCounter.add(3, { subscriber: 'billing' });
    histogram.record(0.5, { subscriber: 'billing' });
    server = await serveMetrics(metrics, '127.0.0.1', 0);

    const om = await fetch(server.url, { headers: { accept: `${OPENMETRICS};version=1.0.0` } });
    expect(om.status).toBe(200);
    expect(om.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    const text = await om.text();
    expect(openMetricsProblems(text)).toEqual([]);
    const exemplars = text.split('\n').filter((l) => l.includes(' # {'));
    expect(exemplars).toEqual([
      expect.stringMatching(
        new RegExp(
          `^hookstream_test_failures_total\\{[^}]*outcome_class="terminal"[^}]*\\} 3 # \\{trace_id="1af${TRACE.slice(3)}",span_id="${SPAN}"\\} 1 \\d+\\.\\d{3}$`,
        ),
      ),
    ]);
    expect(text).toMatch(/^# TYPE hookstream_test_failures counter$/m);
    expect(text).toMatch(/^hookstream_test_failures_total\{[^}]*outcome_class="retryable"[^}]*\} 1$/m);
    expect(text).toMatch(/^hookstream_test_deliveries_total\{[^}]*\} 3$/m);
    expect(text).toMatch(/^hookstream_test_depth\{[^}]*\} 4$/m);

    // The text format, as every scrape got it before: no exemplar, no # EOF, the same samples.
    for (const accept of [undefined, '*/*', 'text/plain;version=0.0.4']) {
      const res = await fetch(server.url, accept === undefined ? {} : { headers: { accept } });
      expect(res.headers.get('content-type')).toBe('text/plain');
      const plain = await res.text();
      expect(plain).not.toContain('# EOF');
      expect(plain).not.toContain('trace_id');
      const samples = (t: string) => t.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      expect(samples(plain)).toEqual(samples(text).map((l) => l.replace(/ # \{.*$/, '')));
    }
    await metrics.shutdown();
  });

  it('keeps no exemplar for a meter that startMetrics did not make', async () => {
    const { metrics: api } = await import('@opentelemetry/api');
    const counter = exemplarCounter(api.getMeter('noop'), 'hookstream.test.noop', {});
    expect(() => counter.add(1, { subscriber: 'a' }, { traceId: TRACE, spanId: SPAN })).not.toThrow();
  });
});
