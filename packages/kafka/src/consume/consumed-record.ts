import type { IHeaders, KafkaMessage } from 'kafkajs';

/** A record as the rest of hookstream sees it: no kafkajs types, headers as utf8 strings. */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** The partition key, utf8; null for records without one. */
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
  /** The record's Kafka timestamp (ms since epoch). */
  readonly timestampMs: number;
  /**
   * Set only on an events-topic record an operator's rewind sent again (its offset below the
   * ledger the rewind moved back from): who rewound and when. Absent on every other record.
   */
  readonly rewound?: RewindMark;
}

/** Which rewind sent a record again (see LedgerRewind). */
export interface RewindMark {
  /** When the rewind was made (ms since epoch). */
  readonly atMs: number;
  /** Who made it. */
  readonly by: string;
}

export function toConsumedRecord(topic: string, partition: number, message: KafkaMessage): ConsumedRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString('utf8') : null,
    value: message.value,
    headers: decodeHeaders(message.headers),
    timestampMs: Number(message.timestamp),
  };
}

/** Kafka allows repeated headers; the first value wins, as in the CloudEvents binding. */
export function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const name in headers) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value !== undefined) out[name] = typeof value === 'string' ? value : value.toString('utf8');
  }
  return out;
}

/**
 * The record with its value copied out of the fetch response: a record kept past its batch
 * (queued, waiting, a recent record of the tap) would otherwise pin the whole response buffer.
 */
export function keptRecord(record: ConsumedRecord): ConsumedRecord {
  return record.value === null ? record : { ...record, value: Buffer.from(record.value) };
}
