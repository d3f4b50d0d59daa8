/** A record as read from Kafka (the shape of @hookstream/kafka's ConsumedRecord), as plain data. */
export interface StoredRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly timestampMs: number;
}
