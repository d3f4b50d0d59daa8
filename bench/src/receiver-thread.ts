import { Worker } from 'node:worker_threads';
import type { Arrival } from '@hookstream/receiver';

/** A recording SampleReceiver on a thread of its own, its arrivals mirrored here. */
export interface ReceiverThread {
  readonly url: string;
  /** Accepted and refused requests, as the receiver recorded them (ids, times, statuses). */
  readonly arrivals: readonly Arrival[];
  close(): Promise<void>;
}

/** What the thread sends: its URL once, then arrivals as they come. */
type ThreadMessage = { readonly url: string } | { readonly arrivals: readonly Arrival[] };

/**
 * Starts the sample receiver (signature check, dedupe) on its own event loop, as a subscriber's
 * service runs: in the benchmark's main thread its arrival times would wait behind the load
 * generator's work, and the publishing behind the receiver's. Arrival times stay comparable with
 * the main thread's `epochNow()`: both are performance.timeOrigin + performance.now().
 */
export async function startReceiverThread(secret: string): Promise<ReceiverThread> {
  const worker = new Worker(new URL('./receiver-thread-worker.ts', import.meta.url), {
    workerData: { secret },
  });
  const arrivals: Arrival[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    worker.on('message', (m: ThreadMessage) => {
      if ('url' in m) resolve(m.url);
      else for (const a of m.arrivals) arrivals.push(a);
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the receiver thread exited with ${code} before listening`)),
    );
  });
  return {
    url,
    arrivals,
    close: async () => {
      await worker.terminate();
    },
  };
}
