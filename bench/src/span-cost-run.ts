/*
 * One run of `bench spans`, in a process of its own (tracing, once started, stays started): builds
 * a delivery's spans as the pusher does, `SPAN_COST_DELIVERIES` times, with tracing on or off, and
 * prints this process's CPU over the run as JSON. Started by span-cost-bench.ts.
 */
import { deliveryTracer, httpTarget, ProcessSpan, startTracing } from '@hookstream/telemetry';

const env = process.env;
const traced = env.SPAN_COST_MODE === 'on';
const deliveries = Number(env.SPAN_COST_DELIVERIES);
const inFlight = Number(env.SPAN_COST_IN_FLIGHT);
const churn = Number(env.SPAN_COST_CHURN);

const tracing = traced ? await startTracing({ serviceName: 'hookstream-bench-spans' }) : null;
const tracer = deliveryTracer();
const target = httpTarget(new URL('http://127.0.0.1:9/hook'));
/** Deliveries whose request is still out: their spans end when the ring is full. */
const ring: (() => void)[] = [];
/** Holds the latest allocation so the loop is not optimised away. */
let sink: unknown;

function delivery(i: number): void {
  const traceparent = `00-${(i + 1).toString(16).padStart(32, 'a')}-${(i + 1).toString(16).padStart(16, 'b')}-01`;
  const record = {
    topic: 'hookstream.bench.spans',
    partition: i % 6,
    offset: String(i),
    key: `k${i}`,
    headers: { traceparent },
  };
  const span = new ProcessSpan(tracer, record, {
    consumerGroup: 'hookstream.sub.bench-spans',
    subscriber: 'bench-spans',
    eventId: `evt-${i}`,
    eventType: 'shipment.updated',
    tier: undefined,
  });
  span.attempt = 1;
  const http = span.http('POST', target);
  const end = () => {
    http.responded(200);
    span.end('delivered', 'ok');
  };
  if (inFlight === 0) end();
  // What the rest of a delivery allocates, short-lived.
  for (let c = 0; c < churn; c++) sink = { c, pair: [c, c], text: `x${c}` };
  if (inFlight > 0) {
    ring.push(end);
    if (ring.length > inFlight) ring.shift()?.();
  }
}

async function run(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    delivery(i);
    // Let the exporter's timers and sockets run, as a pusher's event loop would.
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  for (const end of ring.splice(0)) end();
}

await run(Math.min(deliveries, 20_000)); // warm-up: V8 optimises the code first
await tracing?.flush();
const before = process.cpuUsage();
await run(deliveries);
// The spans of the run exported, inside the measured CPU.
await tracing?.flush();
const used = process.cpuUsage(before);
process.stdout.write(
  `${JSON.stringify({ cpuMicros: used.user + used.system, deliveries, sink: typeof sink })}\n`,
);
await tracing?.shutdown();
process.exit(0);
