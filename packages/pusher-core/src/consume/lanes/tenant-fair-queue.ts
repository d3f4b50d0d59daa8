import { Fifo } from '@hookstream/concurrency';
import { eventTenantOf } from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';
import type { RecordQueue } from './record-queue.ts';

/**
 * Queued records taken a tenant at a time, in turn (round robin over the tenants with records
 * waiting; records without a tenant take their turn as one more), each tenant's oldest first.
 * With key ordering a record never goes before an older queued record of the same key, whatever
 * its tenant: a tenant whose next record waits on another's is passed over this turn, as is one
 * the caller says may not start more now. Otherwise the oldest queued record is always free to
 * go, so a take comes back empty only when every tenant waiting is at its limit.
 */
export class TenantFairQueue implements RecordQueue {
  readonly #keyOrdered: boolean;
  /** Tenant → its queued records, oldest first; the map's order is the turn order. */
  readonly #byTenant = new Map<string, Fifo<ConsumedRecord>>();
  /** With key ordering: key → the offsets of its queued records, oldest first. */
  readonly #byKey = new Map<string, Fifo<string>>();
  #length = 0;

  constructor(ordering: 'none' | 'key') {
    this.#keyOrdered = ordering === 'key';
  }

  get length(): number {
    return this.#length;
  }

  /** Tenants with records waiting. */
  get tenants(): number {
    return this.#byTenant.size;
  }

  push(record: ConsumedRecord): void {
    const tenant = eventTenantOf(record.headers) ?? '';
    let queue = this.#byTenant.get(tenant);
    if (queue === undefined) {
      queue = new Fifo<ConsumedRecord>();
      this.#byTenant.set(tenant, queue);
    }
    queue.push(record);
    if (this.#keyOrdered && record.key !== null) {
      let offsets = this.#byKey.get(record.key);
      if (offsets === undefined) {
        offsets = new Fifo<string>();
        this.#byKey.set(record.key, offsets);
      }
      offsets.push(record.offset);
    }
    this.#length++;
  }

  take(mayStart: (tenant: string) => boolean = () => true): ConsumedRecord | undefined {
    for (const [tenant, queue] of this.#byTenant) {
      const record = queue.peek();
      if (record === undefined || !mayStart(tenant) || !this.#headOfItsKey(record)) continue;
      queue.take();
      // Its turn is used: to the back of the line, or out of it when it has nothing left.
      this.#byTenant.delete(tenant);
      if (queue.length > 0) this.#byTenant.set(tenant, queue);
      if (this.#keyOrdered && record.key !== null) {
        const offsets = this.#byKey.get(record.key);
        offsets?.take();
        if (offsets?.length === 0) this.#byKey.delete(record.key);
      }
      this.#length--;
      return record;
    }
    return undefined;
  }

  clear(): void {
    this.#byTenant.clear();
    this.#byKey.clear();
    this.#length = 0;
  }

  #headOfItsKey(record: ConsumedRecord): boolean {
    if (!this.#keyOrdered || record.key === null) return true;
    return this.#byKey.get(record.key)?.peek() === record.offset;
  }
}
