import { ATTEMPT_LOG_TOPIC, type AttemptLogEntry, type LogFn } from '@hookstream/contracts';
import type { OutgoingRecord, RecordSender } from '@hookstream/kafka';

export interface AttemptLogWriterOptions {
  readonly flushEveryMs?: number;
  /** Entries queued at most, and their bytes: the writer's memory bound. */
  readonly maxQueued?: number;
  readonly maxQueuedBytes?: number;
  /** Bytes one send carries at most (keys, values and a per-record allowance). */
  readonly maxBatchBytes?: number;
  /** An entry encoding to more than this is dropped and counted, never sent. */
  readonly maxEntryBytes?: number;
}

/**
 * The broker refuses a record batch past `message.max.bytes` (1 MiB by default; the attempt log
 * sets no `max.message.bytes` of its own), and refuses it whole. One send is at most half of that,
 * so a batch never comes near it, whatever the partitions its entries land on.
 */
export const ATTEMPT_LOG_BATCH_BYTES = 512 * 1024;
/** Far above any real entry (a few hundred bytes): only a malformed one comes near it. */
export const ATTEMPT_LOG_ENTRY_BYTES = 64 * 1024;
/** What a record costs in a batch besides its key and value (lengths, deltas, attributes). */
const RECORD_OVERHEAD_BYTES = 64;

/**
 * Writes the attempt log (one record per attempt step, keyed by event id) off the delivery hot
 * path: entries queue in memory and go out in sends bounded by bytes. The log answers
 * `hookstream ledger` quickly; it is not the ledger of record (the committed offsets are), so
 * when Kafka cannot take a send or the queue is full, entries are dropped and counted rather
 * than slowing deliveries down.
 */
export class AttemptLogWriter {
  readonly #sender: Pick<RecordSender, 'send'>;
  readonly #log: LogFn;
  readonly #timer: NodeJS.Timeout;
  readonly #maxQueued: number;
  readonly #maxQueuedBytes: number;
  readonly #maxBatchBytes: number;
  readonly #maxEntryBytes: number;
  #queue: OutgoingRecord[] = [];
  #queuedBytes = 0;
  #flushing: Promise<void> | null = null;
  /** Entries not written: queue full, too large, or their send failed. */
  dropped = 0;
  /** Of those, entries larger than the entry bound. */
  oversized = 0;

  constructor(sender: Pick<RecordSender, 'send'>, log: LogFn, options: AttemptLogWriterOptions = {}) {
    this.#sender = sender;
    this.#log = log;
    this.#maxQueued = options.maxQueued ?? 20_000;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? 32 * 1024 * 1024;
    this.#maxBatchBytes = options.maxBatchBytes ?? ATTEMPT_LOG_BATCH_BYTES;
    this.#maxEntryBytes = Math.min(options.maxEntryBytes ?? ATTEMPT_LOG_ENTRY_BYTES, this.#maxBatchBytes);
    this.#timer = setInterval(() => void this.flush(), options.flushEveryMs ?? 100);
    this.#timer.unref();
  }

  write(entry: AttemptLogEntry): void {
    if (this.#queue.length >= this.#maxQueued || this.#queuedBytes >= this.#maxQueuedBytes) {
      this.dropped++;
      return;
    }
    // Typed by construction; no parse here, it runs once per delivery.
    const record = { key: entry.eventId, value: Buffer.from(JSON.stringify(entry)), headers: {} };
    const size = sizeOf(record);
    if (size > this.#maxEntryBytes) {
      this.dropped++;
      this.oversized++;
      if (this.oversized === 1)
        this.#log('warn', 'attempt log entry too large; dropped (the ledger is unaffected)', {
          eventId: entry.eventId,
          subscriber: entry.subscriber,
          bytes: size,
          maxBytes: this.#maxEntryBytes,
        });
      return;
    }
    this.#queue.push(record);
    this.#queuedBytes += size;
  }

  /** Writes what is queued; resolves when those sends ended (failures are logged, not thrown). */
  flush(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    if (this.#queue.length === 0) return Promise.resolve();
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#flushing = this.#sendAll(queued).finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    await this.flush();
  }

  /** One send per batch, in order; a failed batch loses its own entries only. */
  async #sendAll(records: readonly OutgoingRecord[]): Promise<void> {
    for (const batch of batchesOf(records, this.#maxBatchBytes)) {
      try {
        await this.#sender.send(ATTEMPT_LOG_TOPIC, batch);
      } catch (err) {
        this.dropped += batch.length;
        this.#log('warn', 'attempt log write failed; entries dropped (the ledger is unaffected)', {
          entries: batch.length,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
}

function sizeOf(record: OutgoingRecord): number {
  return (record.value?.length ?? 0) + Buffer.byteLength(record.key ?? '') + RECORD_OVERHEAD_BYTES;
}

/** Consecutive runs of records whose sizes add up to at most maxBytes (each record fits alone). */
function batchesOf(records: readonly OutgoingRecord[], maxBytes: number): OutgoingRecord[][] {
  const batches: OutgoingRecord[][] = [];
  let current: OutgoingRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = sizeOf(record);
    if (current.length > 0 && bytes + size > maxBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
