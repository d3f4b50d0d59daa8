import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/kafkajs-patches/crc32c.ts';
import {
  type EncoderLike,
  encodeRecord,
  kafkajsRecordEncoder,
  patchKafkajsProduceEncoding,
  type RecordInput,
} from '../../src/kafkajs-patches/produce-encoding.ts';

const require = createRequire(import.meta.url);
type Encoded = { buffer: Buffer };
type Encode = (input: RecordInput) => EncoderLike;
type ProduceRequest = (args: Record<string, unknown>) => { encode(): Promise<Encoded> };

// Loaded before any patch in this file: the produce request as kafkajs ships it.
const RECORD_MODULE = 'kafkajs/src/protocol/recordBatch/record/v0/index.js';
const PRODUCE_V7 = 'kafkajs/src/protocol/requests/produce/v7/request.js';
const shippedRecord = require(RECORD_MODULE) as Encode & { hookstreamOriginal?: unknown };
const shippedProduce = require(PRODUCE_V7) as ProduceRequest;

/** A deterministic pseudo-random sequence, so a failure names an input that reproduces. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SAMPLES = [
  '',
  'a',
  'shipment.updated',
  '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  'é',
  'naïve café',
  '日本語のテキスト',
  '😀 emoji 🚚',
  '\u0000nul',
  '\ud800 lone surrogate',
  'tail lone \udfff',
  'x'.repeat(63),
  'y'.repeat(64),
  'z'.repeat(127),
  'w'.repeat(128),
  'v'.repeat(8191),
  'u'.repeat(8192),
  'ü'.repeat(100),
];

const POOL = (() => {
  const rnd = random(1);
  return Buffer.from(Array.from({ length: 140_000 }, () => Math.floor(rnd() * 256)));
})();

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)] as T;
}

function bytesOrNull(rnd: () => number): Buffer | string | null | undefined {
  const r = rnd();
  if (r < 0.1) return null;
  if (r < 0.15) return undefined;
  if (r < 0.5) return pick(rnd, SAMPLES);
  const size = pick(rnd, [0, 1, 5, 63, 64, 127, 128, 1024, 16_383, 16_384, 70_000]);
  const start = Math.floor(rnd() * (POOL.length - size));
  return Buffer.from(POOL.subarray(start, start + size));
}

function headerValue(rnd: () => number): Buffer | string {
  return rnd() < 0.7 ? pick(rnd, SAMPLES) : Buffer.from(pick(rnd, SAMPLES), 'utf8');
}

function input(rnd: () => number): RecordInput {
  const headers: Record<string, Buffer | string | (Buffer | string)[]> = {};
  const count = pick(rnd, [0, 1, 2, 7, 7, 20, 70]);
  for (let i = 0; i < count; i++) {
    const name = rnd() < 0.8 ? `h${i}${pick(rnd, ['', 'é', '😀', '_ce'])}` : `${pick(rnd, SAMPLES)}#${i}`;
    headers[name] =
      rnd() < 0.15 ? Array.from({ length: Math.floor(rnd() * 4) }, () => headerValue(rnd)) : headerValue(rnd);
  }
  return {
    offsetDelta: pick(rnd, [0, 1, 63, 64, 500, 8191, 8192, 2 ** 20, 2 ** 31 - 1]),
    timestampDelta: pick(rnd, [
      0,
      1,
      -1,
      63,
      64,
      -64,
      -65,
      1000,
      2 ** 31,
      -(2 ** 31),
      2 ** 40,
      -(2 ** 45) + 3,
    ]),
    key: bytesOrNull(rnd),
    value: bytesOrNull(rnd),
    headers,
  };
}

describe('encodeRecord', () => {
  it('writes the bytes kafkajs writes, for strings, Buffers, unicode, empty and null values', () => {
    const original = kafkajsRecordEncoder() as Encode;
    expect(original).toBe(shippedRecord);
    const rnd = random(15);
    for (let n = 0; n < 3000; n++) {
      const record = input(rnd);
      const fast = encodeRecord(record, () => {
        throw new Error(`fell back for input ${n}`);
      });
      const expected = original(record).buffer;
      if (!fast.buffer.equals(expected)) expect.fail(`input ${n} differs: ${JSON.stringify(record)}`);
    }
  }, 60_000);

  it('writes kafkajs defaults: no headers, no deltas', () => {
    const original = kafkajsRecordEncoder() as Encode;
    for (const record of [
      {},
      { key: 'k' },
      { value: Buffer.alloc(0) },
      { key: '', value: '', headers: {} },
    ]) {
      const fast = encodeRecord(record, original);
      expect(fast.buffer.equals(original(record).buffer)).toBe(true);
    }
  });

  it("leaves inputs it does not handle to kafkajs's encoder, errors included", () => {
    const original = kafkajsRecordEncoder() as Encode;
    const odd: RecordInput[] = [
      { key: 'k', value: 'v', headers: { n: 5 as unknown as string } },
      { key: 'k', value: 'v', headers: { n: null as unknown as string } },
      { key: 7 as unknown as string, value: 'v' },
      { key: 'k', value: new Uint8Array([1, 2]) as unknown as Buffer },
      { key: 'k', timestampDelta: 2 ** 60 },
      { key: 'k', timestampDelta: 1.5 },
      { key: 'k', offsetDelta: 2 ** 32 },
    ];
    for (const record of odd) {
      let fellBack = false;
      const fallback = (r: RecordInput) => {
        fellBack = true;
        return original(r);
      };
      const outcome = (encode: () => Encoded) => {
        try {
          return encode().buffer.toString('hex');
        } catch (err) {
          return `throws ${(err as Error).name}`;
        }
      };
      const fast = outcome(() => encodeRecord(record, fallback));
      expect(fellBack).toBe(true);
      expect(fast).toBe(outcome(() => original(record)));
    }
  });
});

describe('patchKafkajsProduceEncoding', () => {
  it('makes produce requests (v7, over v3) encode byte-identical requests, checksum included, with the fast encoder', async () => {
    const rnd = random(7);
    const topicData = [
      {
        topic: 'events',
        partitions: [0, 1, 2].map((partition) => ({
          partition,
          messages: Array.from({ length: 40 }, (_, i) => ({
            ...input(rnd),
            offsetDelta: undefined,
            timestampDelta: undefined,
            timestamp: 1_764_000_000_000 + i * 3,
          })),
        })),
      },
    ];
    const args = { acks: -1, timeout: 5000, compression: 0, topicData };
    const before = (await shippedProduce(args).encode()).buffer;
    patchKafkajsProduceEncoding();
    patchKafkajsProduceEncoding();
    const patched = require(RECORD_MODULE) as { hookstreamOriginal?: unknown };
    expect(patched.hookstreamOriginal).toBe(shippedRecord);
    expect(kafkajsRecordEncoder()).toBe(shippedRecord);
    const produce = require(PRODUCE_V7) as ProduceRequest;
    expect(produce).not.toBe(shippedProduce);
    let calls = 0;
    const counting = patched as unknown as Encode;
    const spy = require.cache[require.resolve(RECORD_MODULE)];
    if (spy === undefined) throw new Error('record module not cached');
    spy.exports = (r: RecordInput) => {
      calls += 1;
      return counting(r);
    };
    // Reloaded once more so the counting wrapper is the one bound; the bytes must not change.
    for (const v of [3, 4, 5, 6, 7])
      delete require.cache[require.resolve(`kafkajs/src/protocol/requests/produce/v${v}/request.js`)];
    delete require.cache[require.resolve('kafkajs/src/protocol/recordBatch/v0/index.js')];
    expect(require('kafkajs/src/protocol/recordBatch/crc32C/index.js')).toBe(crc32c);
    const after = (await (require(PRODUCE_V7) as ProduceRequest)(args).encode()).buffer;
    spy.exports = patched;
    expect(calls).toBe(120);
    expect(after.equals(before)).toBe(true);
  });

  it('grows encoders without zero-filling, writing the same bytes', () => {
    patchKafkajsProduceEncoding();
    type Writer = {
      writeInt32(v: number): Writer;
      writeVarIntString(v: string): Writer;
      writeBytes(v: Buffer | string | null): Writer;
      writeEncoder(v: unknown): Writer;
      buffer: Buffer;
      buf: Buffer;
    };
    const Encoder = require('kafkajs/src/protocol/encoder.js') as {
      new (size?: number): Writer;
      prototype: { ensureAvailable: unknown; hookstreamZeroFilledGrowth?: unknown };
    };
    const write = () => {
      const rnd = random(3);
      const outer = new Encoder();
      for (let i = 0; i < 400; i++) {
        const inner = new Encoder(1);
        inner
          .writeInt32(i)
          .writeVarIntString(pick(rnd, SAMPLES))
          .writeBytes(bytesOrNull(rnd) ?? null);
        outer.writeEncoder(inner).writeInt32(-i);
      }
      return outer;
    };
    const patched = Encoder.prototype.ensureAvailable;
    expect(Encoder.prototype.hookstreamZeroFilledGrowth).toBeTypeOf('function');
    const fast = write();
    Encoder.prototype.ensureAvailable = Encoder.prototype.hookstreamZeroFilledGrowth;
    let zeroFilled: Writer;
    try {
      zeroFilled = write();
    } finally {
      Encoder.prototype.ensureAvailable = patched;
    }
    expect(fast.buffer.length).toBeGreaterThan(1_000_000);
    expect(fast.buf.length).toBe(zeroFilled.buf.length);
    expect(fast.buffer.equals(zeroFilled.buffer)).toBe(true);
  });
});
