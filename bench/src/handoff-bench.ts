import { createSecretKey, randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { signPayload } from '@hookstream/delivery';

/**
 * What moving a delivery's signing to a worker thread would save the pusher's event loop: the
 * main thread's CPU per record when it signs each record itself (the pusher today), against
 * handing records to a worker in batches and taking back their signatures. Signing (HMAC-SHA256
 * of `id.timestamp.body`) is the largest piece of per-record work a worker could take: the HTTP
 * request must stay with the connection pool on the main thread.
 */
export interface HandoffBenchOptions {
  /** Records signed per measured run. */
  readonly records: number;
  readonly bodyBytes: readonly number[];
  readonly batchSizes: readonly number[];
  /** Batches handed over at once (a pusher has many records in flight). */
  readonly inFlight: number;
}

export interface HandoffRow {
  readonly bodyBytes: number;
  /** 'inline', or the records per message to the worker. */
  readonly mode: 'inline' | number;
  readonly records: number;
  /** The main thread's CPU (user + system) per record, µs. */
  readonly mainCpuUsPerRecord: number;
  /** The worker's CPU per record, µs (0 inline). */
  readonly workerCpuUsPerRecord: number;
  readonly recordsPerSecond: number;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHmac, createSecretKey } = require('node:crypto');
let key;
parentPort.on('message', (m) => {
  if (m.key) { key = createSecretKey(Buffer.from(m.key)); return; }
  if (m.usage) { parentPort.postMessage({ usage: process.threadCpuUsage() }); return; }
  const out = new Array(m.ids.length);
  for (let i = 0; i < m.ids.length; i++)
    out[i] = 'v1,' + createHmac('sha256', key).update(m.ids[i] + '.' + m.ts + '.' + m.bodies[i]).digest('base64');
  parentPort.postMessage({ seq: m.seq, signatures: out });
});
`;

const cpuUs = (u: NodeJS.CpuUsage) => u.user + u.system;

export async function runHandoffBench(
  options: HandoffBenchOptions,
  progress: (line: string) => void = () => {},
): Promise<HandoffRow[]> {
  const secret = randomBytes(32);
  const key = createSecretKey(secret);
  const ts = Math.floor(Date.now() / 1000);
  const rows: HandoffRow[] = [];
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  try {
    worker.postMessage({ key: secret });
    for (const bodyBytes of options.bodyBytes) {
      const body = JSON.stringify({ data: 'x'.repeat(Math.max(0, bodyBytes - 12)) });
      const ids = Array.from({ length: options.records }, (_, i) => `evt_${i.toString(36).padStart(8, '0')}`);
      // Once uncounted, so V8 has optimised both paths before either is measured.
      for (const measured of [false, true]) {
        const inline = signInline(key, ids, ts, body);
        if (measured) rows.push({ bodyBytes, mode: 'inline', ...inline });
        for (const batch of options.batchSizes) {
          const handed = await signInWorker(worker, ids, ts, body, batch, options.inFlight);
          if (measured) {
            rows.push({ bodyBytes, mode: batch, ...handed });
            progress(
              `handoff: ${bodyBytes} B bodies, batches of ${batch}: ${handed.mainCpuUsPerRecord.toFixed(2)} µs main-thread CPU per record`,
            );
          }
        }
      }
    }
  } finally {
    await worker.terminate();
  }
  return rows;
}

function signInline(
  key: ReturnType<typeof createSecretKey>,
  ids: readonly string[],
  ts: number,
  body: string,
) {
  const started = performance.now();
  const cpu = process.threadCpuUsage();
  for (const id of ids) signPayload(key, id, ts, body);
  const used = cpuUs(process.threadCpuUsage(cpu));
  const seconds = (performance.now() - started) / 1000;
  return {
    records: ids.length,
    mainCpuUsPerRecord: used / ids.length,
    workerCpuUsPerRecord: 0,
    recordsPerSecond: ids.length / seconds,
  };
}

async function signInWorker(
  worker: Worker,
  ids: readonly string[],
  ts: number,
  body: string,
  batch: number,
  inFlight: number,
) {
  const workerBefore = await workerUsage(worker);
  const started = performance.now();
  const cpu = process.threadCpuUsage();
  let next = 0;
  let seq = 0;
  let answered = 0;
  const batches = Math.ceil(ids.length / batch);
  await new Promise<void>((resolve) => {
    const send = () => {
      const slice = ids.slice(next, next + batch);
      next += slice.length;
      worker.postMessage({ seq: seq++, ts, ids: slice, bodies: slice.map(() => body) });
    };
    const onMessage = (m: { signatures?: string[] }) => {
      if (m.signatures === undefined) return;
      answered++;
      if (answered === batches) {
        worker.off('message', onMessage);
        resolve();
      } else if (next < ids.length) send();
    };
    worker.on('message', onMessage);
    for (let i = 0; i < inFlight && next < ids.length; i++) send();
  });
  const used = cpuUs(process.threadCpuUsage(cpu));
  const seconds = (performance.now() - started) / 1000;
  const workerAfter = await workerUsage(worker);
  return {
    records: ids.length,
    mainCpuUsPerRecord: used / ids.length,
    workerCpuUsPerRecord: (workerAfter - workerBefore) / ids.length,
    recordsPerSecond: ids.length / seconds,
  };
}

function workerUsage(worker: Worker): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: { usage?: NodeJS.CpuUsage }) => {
      if (m.usage === undefined) return;
      worker.off('message', onMessage);
      resolve(cpuUs(m.usage));
    };
    worker.on('message', onMessage);
    worker.postMessage({ usage: true });
  });
}
