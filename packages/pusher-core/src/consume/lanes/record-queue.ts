import type { ConsumedRecord } from '@hookstream/kafka';

/**
 * The records an events lane fetched with its window full: begun in the ledger (so commits stop
 * before them) and waiting for room to run. Which one runs next is the queue's choice: oldest
 * first (a `Fifo`), or a tenant at a time (`TenantFairQueue`).
 */
export interface RecordQueue {
  readonly length: number;
  push(record: ConsumedRecord): void;
  /**
   * The record to run next; undefined when none is queued, or none that may start now
   * (`mayStart` says whether a tenant's window has room; a queue in fetch order ignores it).
   */
  take(mayStart?: (tenant: string) => boolean): ConsumedRecord | undefined;
  clear(): void;
}
