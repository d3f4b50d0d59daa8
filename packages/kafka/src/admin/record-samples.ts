import type { Kafka } from 'kafkajs';
import { KafkajsPatchError } from '../errors.ts';

/** What one fetch at an offset tells about a partition: the record there and its neighbours' size. */
export interface RecordSample {
  readonly partition: number;
  /** The offset asked for. */
  readonly offset: number;
  /** Kafka timestamp (ms) of the first record at or after the offset; null: none there (yet). */
  readonly timestampMs: number | null;
  /** Mean bytes a record of this stretch takes in the log (key, value, headers and framing); null: none read. */
  readonly bytesPerRecord: number | null;
}

// kafkajs's cluster and broker, as far as a plain Fetch needs them. kafkajs has no public way to
// read records without joining a group; a group per look would cost a join (seconds) and a group
// to delete, for each of a thousand subscribers.
interface InternalBroker {
  fetch(request: {
    replicaId: number;
    isolationLevel: number;
    maxWaitTime: number;
    minBytes: number;
    maxBytes: number;
    topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[];
  }): Promise<{
    responses: {
      topicName: string;
      partitions: {
        partition: number;
        errorCode: number;
        messages: {
          offset: string;
          timestamp: string;
          key: Buffer | null;
          value: Buffer | null;
          headers?: Record<string, unknown>;
          isControlRecord?: boolean;
        }[];
      }[];
    }[];
  }>;
}

export interface InternalCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(options: { nodeId: string }): Promise<InternalBroker>;
}

/** kafkajs's own default for a client's metadata age (DEFAULT_METADATA_MAX_AGE). */
const METADATA_MAX_AGE_MS = 300_000;

// kafkajs 2.2.4 keeps its cluster factory under this symbol (kafkajs/src/index.js, PRIVATE).
const CREATE_CLUSTER = 'private:Kafka:createCluster';

/** A kafkajs cluster of its own (connections apart from the admin's), for plain fetches. */
export function createInternalCluster(kafka: Kafka): InternalCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  const factory = symbol === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[symbol];
  if (typeof factory !== 'function')
    throw new KafkajsPatchError(
      'KAFKAJS_VERSION_UNSUPPORTED',
      'this kafkajs has no cluster factory where 2.2.4 had it; records cannot be sampled (kafkajs-patches/README.md)',
    );
  return (factory as (options: Record<string, unknown>) => InternalCluster)({
    allowAutoTopicCreation: false,
    // kafkajs's admin and consumers pass their default; without it the metadata is stale at
    // once, and every sample and batched read asked for it again (all topics, when none is targeted).
    metadataMaxAge: METADATA_MAX_AGE_MS,
  });
}

// read_committed, as the subscribers read: an aborted replay's records are not what they owe.
const READ_COMMITTED = 1;
// Enough for a few batches: a timestamp and a fair mean size, not a bulk read.
const SAMPLE_BYTES = 64 * 1024;
// The framing of a record in a v2 batch beyond key, value and headers (lengths, deltas,
// attributes), and the batch's own header spread over its records: close enough for a rate.
const RECORD_FRAMING_BYTES = 20;

/**
 * Reads a little of each partition at the given offsets, one Fetch per leader, never waiting
 * for new records: the timestamp of the record at the offset and the mean size of the records read.
 */
export async function sampleRecords(
  cluster: InternalCluster,
  topic: string,
  positions: readonly { readonly partition: number; readonly offset: number }[],
): Promise<RecordSample[]> {
  if (positions.length === 0) return [];
  await cluster.addTargetTopic(topic);
  await cluster.refreshMetadataIfNecessary();
  const byLeader = cluster.findLeaderForPartitions(
    topic,
    positions.map((p) => p.partition),
  );
  const out = new Map<number, RecordSample>();
  await Promise.all(
    Object.entries(byLeader).map(async ([nodeId, partitions]) => {
      const broker = await cluster.findBroker({ nodeId });
      const asked = positions.filter((p) => partitions.includes(p.partition));
      const response = await broker.fetch({
        replicaId: -1,
        isolationLevel: READ_COMMITTED,
        maxWaitTime: 0,
        minBytes: 0,
        maxBytes: SAMPLE_BYTES * asked.length,
        topics: [
          {
            topic,
            partitions: asked.map((p) => ({
              partition: p.partition,
              fetchOffset: String(p.offset),
              maxBytes: SAMPLE_BYTES,
            })),
          },
        ],
      });
      for (const t of response.responses)
        for (const p of t.partitions) {
          const at = asked.find((a) => a.partition === p.partition);
          if (at === undefined) continue;
          // A batch starts where it starts: records below the offset asked come back too.
          const records = p.messages.filter((m) => !m.isControlRecord && Number(m.offset) >= at.offset);
          const first = records[0];
          let bytes = 0;
          for (const r of records) bytes += recordBytes(r);
          out.set(p.partition, {
            partition: p.partition,
            offset: at.offset,
            timestampMs: first === undefined ? null : Number(first.timestamp),
            bytesPerRecord: records.length === 0 ? null : bytes / records.length,
          });
        }
    }),
  );
  return positions.map(
    (p) =>
      out.get(p.partition) ?? {
        partition: p.partition,
        offset: p.offset,
        timestampMs: null,
        bytesPerRecord: null,
      },
  );
}

function recordBytes(r: {
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, unknown>;
}): number {
  let n = RECORD_FRAMING_BYTES + (r.key?.length ?? 0) + (r.value?.length ?? 0);
  for (const [name, value] of Object.entries(r.headers ?? {})) {
    n += Buffer.byteLength(name);
    for (const v of Array.isArray(value) ? value : [value]) {
      if (Buffer.isBuffer(v)) n += v.length;
      else if (typeof v === 'string') n += Buffer.byteLength(v);
    }
  }
  return n;
}
