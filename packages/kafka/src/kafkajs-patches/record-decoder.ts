import { createRequire } from 'node:module';
import { preloadModule } from './preload-module.ts';

const require = createRequire(import.meta.url);

/** The parts of kafkajs's Decoder a record needs. */
interface RecordDecoderInput {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readVarLong(): KafkajsLong;
  readVarIntBytes(): Buffer | null;
}

interface KafkajsLong {
  add(other: KafkajsLong | number): KafkajsLong;
  toString(): string;
}

interface LongStatics {
  fromValue(value: unknown): KafkajsLong;
}

/** What kafkajs's batch decoder passes with every record of a batch (one object per batch). */
interface BatchContext {
  readonly firstOffset?: unknown;
  readonly firstTimestamp?: unknown;
  readonly magicByte?: unknown;
  readonly isControlBatch?: boolean;
  readonly timestampType?: unknown;
  readonly maxTimestamp?: unknown;
}

type HeaderValue = Buffer | null;
type Headers = Record<string, HeaderValue | HeaderValue[]>;

const KAFKAJS = 'kafkajs/src/protocol/recordBatch';

/**
 * What the decoder takes from kafkajs, loaded at the first use rather than at import: on another
 * kafkajs release the patch is skipped, and these paths may not exist there.
 */
interface KafkajsParts {
  readonly Long: LongStatics;
  readonly LOG_APPEND_TIME: number;
}
let kafkajs: KafkajsParts | undefined;
function kafkajsParts(): KafkajsParts {
  kafkajs ??= {
    Long: require('kafkajs/src/utils/long.js') as LongStatics,
    LOG_APPEND_TIME: (require('kafkajs/src/protocol/timestampTypes.js') as { LOG_APPEND_TIME: number })
      .LOG_APPEND_TIME,
  };
  return kafkajs;
}

/** kafkajs's zigzag varint, read the same way. */
function readVarInt(decoder: RecordDecoderInput): number {
  const { buffer } = decoder;
  let result = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = buffer[decoder.offset++] ?? 0;
    result += (byte & 0x7f) << shift;
    shift += 7;
  } while (byte >= 0x80);
  return (result >>> 1) ^ -(result & 1);
}

/** The batch's first offset and timestamp, parsed once per batch instead of once per record. */
const bases = new WeakMap<object, { offset: KafkajsLong; timestamp: KafkajsLong }>();

/**
 * kafkajs 2.2.4's record decoder (recordBatch/record/v0/decoder.js) with the same result, made
 * cheaper: it built the headers object by spreading it once per header (quadratic in the headers
 * a record has; a CloudEvents record has seven or more) and parsed the batch's base offset and
 * timestamp from strings for every record. Repeated header names, and names that an object
 * inherits (`toString`, `__proto__`), come out exactly as kafkajs's own decoder makes them;
 * the package's tests compare the two on many records.
 */
export function decodeRecord(decoder: RecordDecoderInput, batchContext: BatchContext = {}) {
  const {
    firstOffset,
    firstTimestamp,
    magicByte,
    isControlBatch = false,
    timestampType,
    maxTimestamp,
  } = batchContext;
  const { Long, LOG_APPEND_TIME } = kafkajs ?? kafkajsParts();
  let base = bases.get(batchContext);
  if (base === undefined) {
    base = { offset: Long.fromValue(firstOffset), timestamp: Long.fromValue(firstTimestamp) };
    bases.set(batchContext, base);
  }
  const attributes = decoder.readInt8();
  const timestampDelta = decoder.readVarLong();
  const timestamp =
    timestampType === LOG_APPEND_TIME && maxTimestamp
      ? maxTimestamp
      : base.timestamp.add(timestampDelta).toString();
  const offset = base.offset.add(readVarInt(decoder)).toString();
  const key = decoder.readVarIntBytes();
  const value = decoder.readVarIntBytes();
  const headers: Headers = {};
  // Read in place: kafkajs made an array of {key, value} objects and sliced each key's bytes
  // into a Buffer before turning them into a string.
  const count = readVarInt(decoder);
  for (let i = 0; i < count; i++) {
    const keyLength = readVarInt(decoder);
    // A null name becomes the property "null", as kafkajs's object literal makes it.
    let name = 'null';
    if (keyLength !== -1) {
      name = decoder.buffer.toString('utf8', decoder.offset, decoder.offset + keyLength);
      decoder.offset += keyLength;
    }
    const valueLength = readVarInt(decoder);
    let value: HeaderValue = null;
    if (valueLength !== -1) {
      value = decoder.buffer.subarray(decoder.offset, decoder.offset + valueLength);
      decoder.offset += valueLength;
    }
    // Read as kafkajs does, inherited names included: a name already there becomes an array.
    const prev = (headers as Record<string, unknown>)[name];
    const next =
      prev === undefined ? value : Array.isArray(prev) ? prev.concat([value]) : [prev as HeaderValue, value];
    // kafkajs's object literal defines an own property even for `__proto__`.
    if (name === '__proto__')
      Object.defineProperty(headers, name, {
        value: next,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else headers[name] = next;
  }
  return {
    magicByte,
    attributes,
    timestamp,
    offset,
    key,
    value,
    headers,
    isControlRecord: isControlBatch,
    batchContext,
  };
}

/** The record decoder's path (the module replaced). */
export function kafkajsRecordDecoderPath(): string {
  return require.resolve(`${KAFKAJS}/record/v0/decoder.js`);
}

/**
 * Makes kafkajs use `decodeRecord`: the replacement must be in Node's module cache before
 * kafkajs's batch decoder loads, which captures the record decoder then. True when kafkajs uses
 * it; false when the batch decoder had loaded already (records then decode correctly, only slower).
 */
export function preloadRecordDecoder(): boolean {
  return preloadModule(
    kafkajsRecordDecoderPath(),
    [require.resolve(`${KAFKAJS}/v0/decoder.js`)],
    decodeRecord,
  );
}
