import { parentPort, workerData } from 'node:worker_threads';
import { HookstreamError } from '@hookstream/contracts';
import { type ReconcileQuery, reconcile } from '@hookstream/dead-letter-tools';
import { toolKafka } from './kafka-client.ts';

/** What the reconcile worker posts: progress, then its report or its error. */
export type ReconcileWorkerMessage =
  | { readonly kind: 'progress'; readonly read: number; readonly total: number }
  | { readonly kind: 'done'; readonly report: Awaited<ReturnType<typeof reconcile>> }
  | {
      readonly kind: 'failed';
      readonly code: string | null;
      readonly message: string;
      readonly canRetry: boolean | null;
    };

// The query without its callback (a function cannot cross threads); progress is posted instead.
const query = workerData as Omit<ReconcileQuery, 'onProgress'>;
const post = (m: ReconcileWorkerMessage) => parentPort?.postMessage(m);

try {
  const report = await reconcile(toolKafka('hookstream-reconcile'), {
    ...query,
    onProgress: (read, total) => post({ kind: 'progress', read, total }),
  });
  post({ kind: 'done', report });
} catch (err) {
  const known = err instanceof HookstreamError;
  const code = known ? err.code : (err as { code?: unknown }).code;
  const retry = known ? err.canRetry : (err as { retriable?: unknown }).retriable;
  post({
    kind: 'failed',
    code: typeof code === 'string' ? code : null,
    message: err instanceof Error ? err.message : String(err),
    canRetry: typeof retry === 'boolean' ? retry : null,
  });
}
