import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptLogEntry } from '@hookstream/contracts';
import { type ListMessagesQuery, PortalStore, type StoreStats } from '@hookstream/portal-store';
import { PortalWorkload } from './portal-data.ts';
import { type LatencySummary, summarizeLatencies } from './stats.ts';

export interface PortalBenchOptions {
  readonly tenants: number;
  readonly messages: number;
  /** Samples of each query (default 2000). */
  readonly queries?: number;
  /** The store's page cache (default the store's). */
  readonly cacheBytes?: number;
  readonly report: (line: string) => void;
}

export interface PortalBenchResult {
  readonly tenants: number;
  readonly messages: number;
  readonly entries: number;
  readonly largestTenantMessages: number;
  readonly fillSeconds: number;
  readonly entriesPerSecond: number;
  readonly store: StoreStats;
  readonly queries: Readonly<Record<PortalQuery, LatencySummary>>;
  readonly peakRssMiB: number;
  /** Heap used includes garbage not collected yet: the fill's entries weigh on the peak. */
  readonly peakHeapMiB: number;
  /** After the queries, the store open: what a process serving the portal holds. */
  readonly rssAfterQueriesMiB: number;
  readonly heapAfterQueriesMiB: number;
}

export const PORTAL_QUERIES = [
  'list first page',
  'list failed',
  'list by type',
  'list second page',
  'list of 2 endpoints',
  'one message',
  'message origin',
] as const;
export type PortalQuery = (typeof PORTAL_QUERIES)[number];

/** Entries per transaction while filling: about what one fetch of the attempt log brings. */
const FILL_BATCH = 2000;
const PAGE = 50;

/**
 * Fills a PortalStore in a temporary directory with a week of a platform's attempt log, then
 * times the portal's queries against it, with the store reopened (its cache empty) first.
 * Memory is the whole process's: the store, the workload's tables and the samples.
 */
export async function runPortalBench(options: PortalBenchOptions): Promise<PortalBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'hookstream-bench-portal-'));
  const path = join(dir, 'portal.sqlite');
  const memory = new MemoryPeak();
  try {
    const workload = new PortalWorkload(options.tenants, options.messages);
    const storeOptions = {
      path,
      ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
    };
    const fill = await fillStore(new PortalStore(storeOptions), workload, memory, options.report);
    const store = new PortalStore(storeOptions);
    try {
      options.report('timing the queries');
      const queries = timeQueries(store, workload, memory, options.queries ?? 2000);
      return {
        tenants: options.tenants,
        messages: options.messages,
        entries: fill.entries,
        largestTenantMessages: Math.max(...workload.sizes),
        fillSeconds: round(fill.seconds),
        entriesPerSecond: Math.round(fill.entries / fill.seconds),
        store: store.stats(),
        queries,
        ...memory.figures(),
      };
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function fillStore(
  store: PortalStore,
  workload: PortalWorkload,
  memory: MemoryPeak,
  report: (line: string) => void,
): Promise<{ entries: number; seconds: number }> {
  const started = performance.now();
  let entries = 0;
  let lastReport = started;
  let batch: AttemptLogEntry[] = [];
  try {
    for (let i = 0; i < workload.messages; i++) {
      batch.push(...workload.entriesOf(i));
      if (batch.length < FILL_BATCH && i < workload.messages - 1) continue;
      entries += batch.length;
      store.apply(batch, [{ topic: 'bench', partition: 0, nextOffset: String(entries) }]);
      batch = [];
      memory.sample();
      const now = performance.now();
      if (now - lastReport > 2000) {
        lastReport = now;
        const seconds = (now - started) / 1000;
        report(
          `filled ${i + 1} of ${workload.messages} messages (${Math.round(entries / seconds)} entries/s)`,
        );
        // Lets a Ctrl-C through.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } finally {
    store.close();
  }
  return { entries, seconds: (performance.now() - started) / 1000 };
}

function timeQueries(
  store: PortalStore,
  workload: PortalWorkload,
  memory: MemoryPeak,
  samples: number,
): Record<PortalQuery, LatencySummary> {
  const timings = Object.fromEntries(PORTAL_QUERIES.map((q) => [q, [] as number[]])) as Record<
    PortalQuery,
    number[]
  >;
  const timed = <T>(query: PortalQuery, run: () => T): T => {
    const start = performance.now();
    const result = run();
    timings[query].push(performance.now() - start);
    return result;
  };
  for (let n = 0; n < samples; n++) {
    const t = workload.weightedTenant();
    const tenant = workload.tenantName(t);
    const list = (q: Omit<ListMessagesQuery, 'tenant' | 'limit'>) =>
      store.listMessages({ tenant, limit: PAGE, ...q });
    const first = timed('list first page', () => list({}));
    if (first.nextCursor !== null) timed('list second page', () => list({ cursor: first.nextCursor ?? '' }));
    timed('list failed', () => list({ state: 'failed' }));
    timed('list by type', () => list({ types: [workload.typeOf(n)] }));
    const endpoints = workload.endpointCount(t);
    timed('list of 2 endpoints', () =>
      list({
        subscribers: [workload.endpointName(t, n % endpoints), workload.endpointName(t, (n + 1) % endpoints)],
      }),
    );
    const i = Math.floor(workload.random() * workload.messages);
    const found = timed('one message', () =>
      store.getMessage(workload.tenantName(workload.tenantOf[i] ?? 0), workload.eventId(i)),
    );
    if (found === null) throw new Error(`message ${workload.eventId(i)} was not found: the fill is wrong`);
    const origin = timed('message origin', () =>
      store.messageOrigin(workload.tenantName(workload.tenantOf[i] ?? 0), workload.eventId(i)),
    );
    if (origin === null) throw new Error(`message ${workload.eventId(i)} has no origin: the fill is wrong`);
    memory.sample();
  }
  return Object.fromEntries(PORTAL_QUERIES.map((q) => [q, summarizeLatencies(timings[q])])) as Record<
    PortalQuery,
    LatencySummary
  >;
}

/** The process's peak RSS (the kernel's count) and the highest heap sampled. */
class MemoryPeak {
  #heap = 0;

  /** Called between batches and queries: the work is synchronous, so no timer would run. */
  sample(): void {
    this.#heap = Math.max(this.#heap, process.memoryUsage().heapUsed);
  }

  figures(): Pick<
    PortalBenchResult,
    'peakRssMiB' | 'peakHeapMiB' | 'rssAfterQueriesMiB' | 'heapAfterQueriesMiB'
  > {
    this.sample();
    const now = process.memoryUsage();
    return {
      peakRssMiB: round((process.resourceUsage().maxRSS * 1024) / 2 ** 20),
      peakHeapMiB: round(this.#heap / 2 ** 20),
      rssAfterQueriesMiB: round(now.rss / 2 ** 20),
      heapAfterQueriesMiB: round(now.heapUsed / 2 ** 20),
    };
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
