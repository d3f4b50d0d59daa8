import { Worker } from 'node:worker_threads';
import { HookstreamError } from '@hookstream/contracts';
import type { ReconcileQuery, ReconcileReport } from '@hookstream/dead-letter-tools';
import type { ReconcileWorkerMessage } from './reconcile-worker.ts';

/**
 * The young generation of the thread that streams: V8 lets it grow to 64 MiB semi-spaces under
 * the stream's steady churn of short-lived fetch records, which is most of the process's peak
 * RSS; 8 MiB semi-spaces keep it small at no cost in time (benchmarks.md, reconcile).
 */
const YOUNG_GENERATION_MB = 24;
/**
 * The old generation's bound. V8 grows an old generation bounded at 1 GiB or less cautiously, as
 * on a device short of memory, and so collects the fetch records that outlived the young
 * generation (and the fetch buffers they hold) long before the process-wide default would: the
 * live set stays about 30 MiB whatever the window, and the rest was garbage waiting. The failure
 * evidence is what grows with an incident; a read it does not fit runs again unbounded.
 */
const OLD_GENERATION_MB = 1024;

export interface ReconcileThreadOptions {
  /** Records read of the window's total, as the worker posts them. */
  readonly onProgress: (read: number, total: number) => void;
  /** The old generation's bound, MiB; null: V8's default for the process. */
  readonly oldGenerationMb?: number | null;
  /** The bounded read ran out of memory and runs again unbounded (told before it starts). */
  readonly onUnbounded?: () => void;
}

/**
 * Runs the query on a worker thread with a bounded heap, then once more unbounded if the bound
 * was too small (the read only reads, so running it again changes nothing); its errors come back
 * as they were.
 */
export async function reconcileInThread(
  query: Omit<ReconcileQuery, 'onProgress'>,
  options: ReconcileThreadOptions,
): Promise<ReconcileReport> {
  const bound = options.oldGenerationMb === undefined ? OLD_GENERATION_MB : options.oldGenerationMb;
  try {
    return await runWorker(query, options.onProgress, bound);
  } catch (err) {
    if (bound === null || (err as { code?: unknown }).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw err;
    options.onUnbounded?.();
    return runWorker(query, options.onProgress, null);
  }
}

function runWorker(
  query: Omit<ReconcileQuery, 'onProgress'>,
  onProgress: (read: number, total: number) => void,
  oldGenerationMb: number | null,
): Promise<ReconcileReport> {
  const worker = new Worker(new URL('./reconcile-worker.ts', import.meta.url), {
    workerData: query,
    resourceLimits: {
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      ...(oldGenerationMb === null ? {} : { maxOldGenerationSizeMb: oldGenerationMb }),
    },
  });
  return new Promise((resolve, reject) => {
    worker.on('message', (m: ReconcileWorkerMessage) => {
      if (m.kind === 'progress') onProgress(m.read, m.total);
      else if (m.kind === 'done') resolve(m.report);
      else reject(new HookstreamError(m.code ?? 'RECONCILE_FAILED', m.message, m.canRetry === true));
    });
    worker.on('error', reject);
    worker.on('exit', (code) =>
      reject(new HookstreamError('RECONCILE_FAILED', `the reconcile worker stopped (exit ${code})`, false)),
    );
  });
}
