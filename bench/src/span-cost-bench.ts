import { spawn } from 'node:child_process';

/**
 * What a delivery's spans cost by themselves, and beside the rest of a delivery's allocations:
 * each run (span-cost-run.ts, a process of its own) builds the pusher's two spans per delivery
 * (`ProcessSpan` from a record with a traceparent, its HTTP child, both ended) and exports them
 * over OTLP/HTTP protobuf to the local Jaeger, or builds them with tracing off. A setting keeps
 * `inFlight` deliveries' spans open at once and allocates `churn` short-lived objects per delivery
 * besides them. Tracing's cost is a traced run's CPU per delivery minus an untraced one's, in pairs
 * (off then on) `rounds` times per setting.
 */
export interface SpanCostOptions {
  readonly deliveries: number;
  readonly rounds: number;
  readonly settings: readonly SpanCostSetting[];
}

export interface SpanCostSetting {
  readonly inFlight: number;
  readonly churn: number;
}

export interface SpanCostRow extends SpanCostSetting {
  /** Untraced CPU per delivery of each round, µs. */
  readonly offMicros: readonly number[];
  /** Traced CPU per delivery of each round, µs. */
  readonly onMicros: readonly number[];
  /** Tracing's CPU per delivery, the lowest and highest of the rounds' differences, µs. */
  readonly costMicros: { readonly low: number; readonly high: number };
}

export async function runSpanCostBench(
  options: SpanCostOptions,
  progress: (line: string) => void = () => {},
): Promise<SpanCostRow[]> {
  const rows: SpanCostRow[] = [];
  for (const setting of options.settings) {
    const offMicros: number[] = [];
    const onMicros: number[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      progress(
        `spans: ${setting.inFlight} in flight, ${setting.churn} objects, round ${round} of ${options.rounds}`,
      );
      offMicros.push(await spanRun('off', setting, options.deliveries));
      onMicros.push(await spanRun('on', setting, options.deliveries));
    }
    const costs = onMicros.map((on, i) => on - (offMicros[i] ?? 0));
    rows.push({
      ...setting,
      offMicros,
      onMicros,
      costMicros: { low: Math.min(...costs), high: Math.max(...costs) },
    });
  }
  return rows;
}

/** One run's CPU per delivery, µs. */
function spanRun(mode: 'on' | 'off', setting: SpanCostSetting, deliveries: number): Promise<number> {
  const child = spawn(process.execPath, [new URL('./span-cost-run.ts', import.meta.url).pathname], {
    env: {
      ...process.env,
      SPAN_COST_MODE: mode,
      SPAN_COST_DELIVERIES: String(deliveries),
      SPAN_COST_IN_FLIGHT: String(setting.inFlight),
      SPAN_COST_CHURN: String(setting.churn),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined)
        return reject(new Error(`a spans run (${mode}) exited with ${code}`));
      const { cpuMicros } = JSON.parse(line) as { cpuMicros: number };
      resolve(cpuMicros / deliveries);
    });
  });
}
