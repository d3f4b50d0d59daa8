import { createRequire } from 'node:module';
import { crc32c } from './crc32c.ts';

/** What kafkajs's produce request passes to its record encoder for each message. */
export interface RecordInput {
  readonly offsetDelta?: unknown;
  readonly timestampDelta?: unknown;
  readonly key?: unknown;
  readonly value?: unknown;
  readonly headers?: unknown;
}

/** The part of kafkajs's Encoder the record batch reads from a record: its bytes. */
export interface EncoderLike {
  buf: Buffer;
  offset: number;
  /** kafkajs's getter: the bytes written. */
  readonly buffer: Buffer;
}

type RecordEncoder = ((input: RecordInput) => EncoderLike) & { hookstreamOriginal?: RecordEncoder };

// Deep paths: kafkajs does not export its protocol. Checked by this package's tests against the
// installed kafkajs, so an upgrade that moves or changes them fails there rather than silently.
const RECORD_MODULE = 'kafkajs/src/protocol/recordBatch/record/v0/index.js';
const ENCODER_MODULE = 'kafkajs/src/protocol/encoder.js';
const CRC_MODULE = 'kafkajs/src/protocol/recordBatch/crc32C/index.js';
const RECORD_BATCH_MODULE = 'kafkajs/src/protocol/recordBatch/v0/index.js';
/**
 * The modules that bind the record encoder or the checksum when they are first loaded: the
 * record batch, and the produce requests (v4–v7 wrap v3).
 */
const BINDING_MODULES = [
  RECORD_BATCH_MODULE,
  ...[3, 4, 5, 6, 7].map((v) => `kafkajs/src/protocol/requests/produce/v${v}/request.js`),
];

const require = createRequire(import.meta.url);

/** A field value the fast path writes the way kafkajs does (null, a Buffer, or a string). */
type Bytes = Buffer | string | null;

/**
 * kafkajs 2.2.4 encodes each record with a fresh 512-byte zeroed Encoder, plus one more per
 * header, a temporary Buffer per varint and Long arithmetic per timestamp, then copies each
 * header into the record and the record into the batch: with the ingress's seven headers that
 * was most of the produce path's CPU. This encodes the same bytes into one buffer of the exact
 * size. Inputs outside what it handles (a header value that is neither a string nor a Buffer, a
 * timestamp that is not a safe integer...) go to kafkajs's own encoder, so behaviour, including
 * kafkajs's errors, stays kafkajs's.
 */
export function encodeRecord(input: RecordInput, fallback: RecordEncoder): EncoderLike {
  const { offsetDelta = 0, timestampDelta = 0, key, value, headers = {} } = input;
  if (
    !isInt32(offsetDelta) ||
    !isVarLong(timestampDelta) ||
    !isBytes(key) ||
    !isBytes(value) ||
    typeof headers !== 'object' ||
    headers === null
  ) {
    return fallback(input);
  }
  // Flattened as kafkajs does: an array value is one header per element, in order.
  const headerKeys: string[] = [];
  const headerValues: (Buffer | string)[] = [];
  for (const name of Object.keys(headers)) {
    const v = (headers as Record<string, unknown>)[name];
    if (Array.isArray(v)) {
      for (const item of v) {
        if (!isHeaderValue(item)) return fallback(input);
        headerKeys.push(name);
        headerValues.push(item);
      }
    } else {
      if (!isHeaderValue(v)) return fallback(input);
      headerKeys.push(name);
      headerValues.push(v);
    }
  }
  const keyLength = bytesLength(key as Bytes);
  const valueLength = bytesLength(value as Bytes);
  let headersSize = sizeOfVarInt(headerKeys.length);
  const headerKeyLengths = new Array<number>(headerKeys.length);
  const headerValueLengths = new Array<number>(headerKeys.length);
  for (let i = 0; i < headerKeys.length; i++) {
    const k = Buffer.byteLength(headerKeys[i] as string, 'utf8');
    const v = bytesLength(headerValues[i] as Buffer | string);
    headerKeyLengths[i] = k;
    headerValueLengths[i] = v;
    headersSize += sizeOfVarInt(k) + k + sizeOfVarInt(v) + v;
  }
  const bodySize =
    1 +
    sizeOfVarLong(timestampDelta as number) +
    sizeOfVarInt(offsetDelta as number) +
    sizeOfVarIntBytes(keyLength) +
    sizeOfVarIntBytes(valueLength) +
    headersSize;
  const buf = Buffer.allocUnsafe(sizeOfVarInt(bodySize) + bodySize);
  let at = writeVarInt(buf, 0, bodySize);
  buf[at++] = 0; // attributes: none used
  at = writeVarLong(buf, at, timestampDelta as number);
  at = writeVarInt(buf, at, offsetDelta as number);
  at = writeBytes(buf, at, key as Bytes, keyLength);
  at = writeBytes(buf, at, value as Bytes, valueLength);
  at = writeVarInt(buf, at, headerKeys.length);
  for (let i = 0; i < headerKeys.length; i++) {
    at = writeBytes(buf, at, headerKeys[i] as string, headerKeyLengths[i] as number);
    at = writeBytes(buf, at, headerValues[i] as Buffer | string, headerValueLengths[i] as number);
  }
  if (at !== buf.length) return fallback(input);
  const encoder = Object.create(kafkajsEncoderPrototype()) as EncoderLike;
  encoder.buf = buf;
  encoder.offset = at;
  return encoder;
}

/** kafkajs's own record encoder (as loaded, before any patch). */
export function kafkajsRecordEncoder(): (input: RecordInput) => EncoderLike {
  const current = require(RECORD_MODULE) as RecordEncoder;
  return current.hookstreamOriginal ?? current;
}

/**
 * Installs encodeRecord as kafkajs's record encoder, crc32c as its record batch checksum, and
 * an Encoder growth that does not zero-fill.
 * kafkajs binds both when its record batch and produce request modules are first loaded (on the
 * first send), so this replaces the cached modules' exports and, if those modules were loaded
 * already, drops them so the next send loads them again with the new functions. Idempotent.
 */
export function patchKafkajsProduceEncoding(): true {
  const path = require.resolve(RECORD_MODULE);
  const original = require(path) as RecordEncoder;
  if (original.hookstreamOriginal !== undefined) return true;
  const fast: RecordEncoder = (input) => encodeRecord(input, original);
  fast.hookstreamOriginal = original;
  require(CRC_MODULE);
  const record = require.cache[path];
  const crc = require.cache[require.resolve(CRC_MODULE)];
  if (record === undefined || crc === undefined) throw new Error('kafkajs protocol modules not cached');
  record.exports = fast;
  crc.exports = crc32c;
  const encoder = kafkajsEncoderPrototype() as EncoderGrowth;
  encoder.hookstreamZeroFilledGrowth = encoder.ensureAvailable;
  encoder.ensureAvailable = ensureAvailable;
  for (const module of BINDING_MODULES) delete require.cache[require.resolve(module)];
  return true;
}

interface EncoderGrowth {
  ensureAvailable(this: EncoderLike, length: number): void;
  hookstreamZeroFilledGrowth?: (this: EncoderLike, length: number) => void;
}

/**
 * kafkajs's Encoder.ensureAvailable with an uninitialised new buffer: kafkajs zero-fills each
 * doubling, and a produce request's bytes are copied into a growing encoder at every level of
 * the request (batch, partition, topic, request). Only bytes below `offset` are ever read (the
 * `buffer` getter slices there, and every write lands below it before it moves), so the output
 * is the same.
 */
function ensureAvailable(this: EncoderLike, length: number): void {
  if (this.offset + length > this.buf.length) {
    // kafkajs's growth: the next power of two above the size needed.
    const grown = Buffer.allocUnsafe(1 << (31 - Math.clz32(this.offset + length) + 1));
    this.buf.copy(grown, 0, 0, this.offset);
    this.buf = grown;
  }
}

let encoderPrototype: object | undefined;
function kafkajsEncoderPrototype(): object {
  encoderPrototype ??= (require(ENCODER_MODULE) as { prototype: object }).prototype;
  return encoderPrototype;
}

function isInt32(v: unknown): v is number {
  return typeof v === 'number' && (v | 0) === v;
}

/** Integers whose zigzag (2|v|) stays exact in a double; timestamp deltas are far smaller. */
function isVarLong(v: unknown): v is number {
  return Number.isInteger(v) && Math.abs(v as number) <= 2 ** 52;
}

function isBytes(v: unknown): boolean {
  return v === null || v === undefined || typeof v === 'string' || Buffer.isBuffer(v);
}

/** kafkajs sizes header values with Buffer.byteLength, which throws for null and numbers. */
function isHeaderValue(v: unknown): v is Buffer | string {
  return typeof v === 'string' || Buffer.isBuffer(v);
}

/** Bytes of a nullable field; -1 for null (kafkajs writes a length of -1 and nothing else). */
function bytesLength(v: Bytes | undefined): number {
  if (v === null || v === undefined) return -1;
  return typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.length;
}

function sizeOfVarIntBytes(length: number): number {
  return length < 0 ? sizeOfVarInt(-1) : sizeOfVarInt(length) + length;
}

function writeBytes(buf: Buffer, at: number, v: Bytes, length: number): number {
  const start = writeVarInt(buf, at, length);
  if (v === null || length < 0) return start;
  if (typeof v === 'string') buf.write(v, start, length, 'utf8');
  else v.copy(buf, start);
  return start + length;
}

// Varints as kafkajs's Encoder writes them: 32-bit zigzag, then 7 bits a byte.
function zigZag(value: number): number {
  return (value << 1) ^ (value >> 31);
}

function sizeOfVarInt(value: number): number {
  let v = zigZag(value);
  let bytes = 1;
  while ((v & 0xffffff80) !== 0) {
    bytes += 1;
    v >>>= 7;
  }
  return bytes;
}

function writeVarInt(buf: Buffer, at: number, value: number): number {
  let v = zigZag(value);
  let i = at;
  while ((v & 0xffffff80) !== 0) {
    buf[i++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[i++] = v & 0x7f;
  return i;
}

// Varlongs: 64-bit zigzag of a safe integer, in plain arithmetic (exact below 2^53).
function zigZag64(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function sizeOfVarLong(value: number): number {
  let v = zigZag64(value);
  let bytes = 1;
  while (v >= 0x80) {
    bytes += 1;
    v = Math.floor(v / 0x80);
  }
  return bytes;
}

function writeVarLong(buf: Buffer, at: number, value: number): number {
  let v = zigZag64(value);
  let i = at;
  while (v >= 0x80) {
    buf[i++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[i++] = v;
  return i;
}
