import { createRequire } from 'node:module';

// kafkajs 2.2.4 sends OffsetFetch up to v4 and FindCoordinator up to v2: one group per request.
// Kafka accepts many groups in one OffsetFetch from v8 and many keys in one FindCoordinator from
// v4, both "flexible" versions (compact strings and arrays, tagged fields). This is their codec,
// written with kafkajs's own Encoder and Decoder; only the bytes are built here, the sending is
// in group-batch-offsets.ts.

/** kafkajs's Encoder, as far as these requests use it. */
export interface KafkajsEncoder {
  writeInt8(value: number): KafkajsEncoder;
  writeInt32(value: number): KafkajsEncoder;
  writeBoolean(value: boolean): KafkajsEncoder;
  writeUVarInt(value: number): KafkajsEncoder;
  writeUVarIntString(value: string | null): KafkajsEncoder;
  writeEncoder(value: KafkajsEncoder): KafkajsEncoder;
  writeBuffer(value: Buffer): KafkajsEncoder;
  readonly buffer: Buffer;
}

interface KafkajsDecoder {
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readInt64(): { toString(): string };
  readUVarInt(): number;
  readUVarIntString(): string | null;
}

const require = createRequire(import.meta.url);
const Encoder = require('kafkajs/src/protocol/encoder') as new () => KafkajsEncoder;
const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => KafkajsDecoder;

export const OFFSET_FETCH_API_KEY = 9;
export const OFFSET_FETCH_BATCH_VERSION = 8;
export const FIND_COORDINATOR_API_KEY = 10;
export const FIND_COORDINATOR_BATCH_VERSION = 4;
/** FindCoordinator's key type for a consumer group. */
const GROUP_KEY_TYPE = 0;

/** kafkajs's request framing takes an Encoder (it checks for one), not a Buffer. */
export function encoderOf(body: Buffer): KafkajsEncoder {
  return new Encoder().writeBuffer(body);
}

/** One group's ask: its partitions of these topics. */
export interface GroupOffsetsAsk {
  readonly groupId: string;
  readonly topics: readonly { readonly topic: string; readonly partitions: readonly number[] }[];
}

export interface GroupOffsetsAnswer {
  readonly groupId: string;
  /** The group's error (0: none); a coordinator error means: ask again elsewhere. */
  readonly errorCode: number;
  readonly topics: readonly {
    readonly topic: string;
    readonly partitions: readonly {
      readonly partition: number;
      /** -1: nothing committed. */
      readonly offset: string;
      readonly metadata: string | null;
      readonly errorCode: number;
    }[];
  }[];
}

export interface CoordinatorAnswer {
  readonly key: string;
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/**
 * The body of an OffsetFetch v8 request, preceded by the request header's empty tagged fields:
 * kafkajs writes header v1 (up to the client id), and a flexible request's header v2 is that
 * followed by its tagged fields.
 */
export function encodeOffsetFetchV8(groups: readonly GroupOffsetsAsk[], requireStable = false): Buffer {
  const body = new Encoder().writeUVarInt(0);
  compactArray(body, groups, (e, g) => {
    e.writeUVarIntString(g.groupId);
    compactArray(e, g.topics, (te, t) => {
      te.writeUVarIntString(t.topic);
      compactArray(te, t.partitions, (pe, p) => pe.writeInt32(p));
      te.writeUVarInt(0);
    });
    e.writeUVarInt(0);
  });
  body.writeBoolean(requireStable);
  body.writeUVarInt(0);
  return body.buffer;
}

/** An OffsetFetch v8 response after the correlation id: header tagged fields, then the body. */
export function decodeOffsetFetchV8(payload: Buffer): GroupOffsetsAnswer[] {
  const d = new Decoder(payload);
  skipTaggedFields(d);
  d.readInt32(); // throttle_time_ms
  const groups = compactArrayOf(d, () => {
    const groupId = d.readUVarIntString() ?? '';
    const topics = compactArrayOf(d, () => {
      const topic = d.readUVarIntString() ?? '';
      const partitions = compactArrayOf(d, () => {
        const partition = d.readInt32();
        const offset = d.readInt64().toString();
        d.readInt32(); // committed_leader_epoch
        const metadata = d.readUVarIntString();
        const errorCode = d.readInt16();
        skipTaggedFields(d);
        return { partition, offset, metadata, errorCode };
      });
      skipTaggedFields(d);
      return { topic, partitions };
    });
    const errorCode = d.readInt16();
    skipTaggedFields(d);
    return { groupId, errorCode, topics };
  });
  skipTaggedFields(d);
  return groups;
}

/** The body of a FindCoordinator v4 request for these groups, after the header's tagged fields. */
export function encodeFindCoordinatorV4(groupIds: readonly string[]): Buffer {
  const body = new Encoder().writeUVarInt(0).writeInt8(GROUP_KEY_TYPE);
  compactArray(body, groupIds, (e, g) => e.writeUVarIntString(g));
  body.writeUVarInt(0);
  return body.buffer;
}

/** A FindCoordinator v4 response after the correlation id. */
export function decodeFindCoordinatorV4(payload: Buffer): CoordinatorAnswer[] {
  const d = new Decoder(payload);
  skipTaggedFields(d);
  d.readInt32(); // throttle_time_ms
  const coordinators = compactArrayOf(d, () => {
    const key = d.readUVarIntString() ?? '';
    const nodeId = d.readInt32();
    const host = d.readUVarIntString() ?? '';
    const port = d.readInt32();
    const errorCode = d.readInt16();
    const errorMessage = d.readUVarIntString();
    skipTaggedFields(d);
    return { key, nodeId, host, port, errorCode, errorMessage };
  });
  skipTaggedFields(d);
  return coordinators;
}

function compactArray<T>(
  encoder: KafkajsEncoder,
  items: readonly T[],
  write: (e: KafkajsEncoder, item: T) => void,
): void {
  encoder.writeUVarInt(items.length + 1);
  for (const item of items) {
    const e = new Encoder();
    write(e, item);
    encoder.writeEncoder(e);
  }
}

function compactArrayOf<T>(d: KafkajsDecoder, read: () => T): T[] {
  const length = d.readUVarInt();
  const out: T[] = [];
  for (let i = 0; i < length - 1; i++) out.push(read());
  return out;
}

/** Skips tagged fields (kafkajs's readTaggedFields steps one byte short on a non-empty field). */
function skipTaggedFields(d: KafkajsDecoder): void {
  const count = d.readUVarInt();
  for (let i = 0; i < count; i++) {
    d.readUVarInt(); // tag
    const size = d.readUVarInt();
    for (let b = 0; b < size; b++) d.readInt8();
  }
}
