import {
  ATTEMPT_BATCH_MAX_ENTRIES,
  ATTEMPT_LOG_TOPIC,
  type AttemptLogEntry,
  type LogFn,
} from '@hookstream/contracts';
import { keyPartitioner, type OutgoingRecord, type RecordSender } from '@hookstream/kafka';

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
/** A batch record's value at most: a fraction of a send, so a send still carries many. */
export const ATTEMPT_LOG_RECORD_BYTES = 128 * 1024;
/** What a record costs in a batch besides its key and value (lengths, deltas, attributes). */
const RECORD_OVERHEAD_BYTES = 64;

/** An entry as queued: encoded once, when written. */
interface Queued {
  readonly eventId: string;
  readonly json: string;
  readonly bytes: number;
}

/** A record to send and the number of entries it carries (what a failed send loses). */
interface Outgoing {
  readonly record: OutgoingRecord;
  readonly entries: number;
  readonly bytes: number;
}

/**
 * Writes the attempt log off the delivery hot path: entries queue in memory and go out in sends
 * bounded by bytes. Once told the topic's partition count (useBatchRecords), each flush writes
 * one batch record per partition (or a few, within ATTEMPT_BATCH_MAX_ENTRIES and
 * ATTEMPT_LOG_RECORD_BYTES) holding the entries whose event ids hash there (the format:
 * AttemptLogBatch); before that, one record per entry keyed by its event id. The log answers
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
  readonly #maxRecordBytes: number;
  #partitionOf: ((eventId: string) => number) | null = null;
  #queue: Queued[] = [];
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
    this.#maxRecordBytes = Math.min(ATTEMPT_LOG_RECORD_BYTES, this.#maxBatchBytes);
    this.#maxEntryBytes = Math.min(options.maxEntryBytes ?? ATTEMPT_LOG_ENTRY_BYTES, this.#maxRecordBytes);
    this.#timer = setInterval(() => void this.flush(), options.flushEveryMs ?? 100);
    this.#timer.unref();
  }

  write(entry: AttemptLogEntry): void {
    if (this.#queue.length >= this.#maxQueued || this.#queuedBytes >= this.#maxQueuedBytes) {
      this.dropped++;
      return;
    }
    // Typed by construction; no parse here, it runs once per delivery.
    const json = JSON.stringify(entry);
    const size = Buffer.byteLength(json) + Buffer.byteLength(entry.eventId) + RECORD_OVERHEAD_BYTES;
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
    this.#queue.push({ eventId: entry.eventId, json, bytes: size });
    this.#queuedBytes += size;
  }

  /**
   * From the next flush on, entries go in batch records placed by `partitionCount`, the topic's
   * count now. Were partitions added later, entries of an event could sit where a reader does not
   * look until the process restarts; the topic is created with a fixed count and never grown.
   */
  useBatchRecords(partitionCount: number): void {
    this.#partitionOf = keyPartitioner(partitionCount);
  }

  /** Writes what is queued; resolves when those sends ended (failures are logged, not thrown). */
  flush(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    if (this.#queue.length === 0) return Promise.resolve();
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#flushing = this.#sendAll(this.#records(queued)).finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    await this.flush();
  }

  /** The records for `queued`: one per entry, or batch records per partition, in order within each. */
  #records(queued: readonly Queued[]): Outgoing[] {
    const partitionOf = this.#partitionOf;
    if (partitionOf === null)
      return queued.map((q) => ({
        record: { key: q.eventId, value: Buffer.from(q.json), headers: {} },
        entries: 1,
        bytes: q.bytes,
      }));
    const byPartition = new Map<number, Queued[]>();
    for (const q of queued) {
      const partition = partitionOf(q.eventId);
      const group = byPartition.get(partition);
      if (group === undefined) byPartition.set(partition, [q]);
      else group.push(q);
    }
    const out: Outgoing[] = [];
    for (const group of byPartition.values()) out.push(...batchRecords(group, this.#maxRecordBytes));
    return out;
  }

  /** One send per batch, in order; a failed batch loses its own entries only. */
  async #sendAll(records: readonly Outgoing[]): Promise<void> {
    for (const batch of batchesOf(records, this.#maxBatchBytes)) {
      const entries = batch.reduce((sum, o) => sum + o.entries, 0);
      try {
        await this.#sender.send(
          ATTEMPT_LOG_TOPIC,
          batch.map((o) => o.record),
        );
      } catch (err) {
        this.dropped += entries;
        this.#log('warn', 'attempt log write failed; entries dropped (the ledger is unaffected)', {
          entries,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
}

const BATCH_OPEN = '{"entries":[';
const BATCH_CLOSE = ']}';

/**
 * Batch records of one partition's entries, in order: each at most ATTEMPT_BATCH_MAX_ENTRIES
 * entries and about maxBytes (an entry fits alone: the entry bound is below it), keyed by its
 * first entry's event id so the default partitioner puts it where all of them hash.
 */
function batchRecords(group: readonly Queued[], maxBytes: number): Outgoing[] {
  const out: Outgoing[] = [];
  let start = 0;
  while (start < group.length) {
    let end = start;
    let bytes = BATCH_OPEN.length + BATCH_CLOSE.length + RECORD_OVERHEAD_BYTES;
    while (end < group.length && end - start < ATTEMPT_BATCH_MAX_ENTRIES) {
      const next = (group[end] as Queued).bytes;
      if (end > start && bytes + next > maxBytes) break;
      bytes += next;
      end++;
    }
    const members = group.slice(start, end);
    const value = Buffer.from(`${BATCH_OPEN}${members.map((q) => q.json).join(',')}${BATCH_CLOSE}`);
    const key = (members[0] as Queued).eventId;
    out.push({ record: { key, value, headers: {} }, entries: members.length, bytes });
    start = end;
  }
  return out;
}

/** Consecutive runs of records whose sizes add up to at most maxBytes (each record fits alone). */
function batchesOf(records: readonly Outgoing[], maxBytes: number): Outgoing[][] {
  const batches: Outgoing[][] = [];
  let current: Outgoing[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = record.bytes;
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
