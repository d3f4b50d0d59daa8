import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decodeRecord, kafkajsRecordDecoderPath } from '../../src/kafkajs-patches/record-decoder.ts';
import { kafkajsOriginal } from './kafkajs-original.ts';

const require = createRequire(import.meta.url);
const KAFKAJS_RECORD_DECODER = kafkajsRecordDecoderPath();
type Decode = typeof decodeRecord;
type HeaderInput = Record<string, string | Buffer | (string | Buffer)[]>;

/** kafkajs's own record decoder, loaded afresh whatever the module cache holds. */
const kafkajsDecoder = (): Decode => kafkajsOriginal<Decode>(KAFKAJS_RECORD_DECODER);

const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => unknown;
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (r: {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: HeaderInput;
}) => { buffer: Buffer };

/** One record's bytes as a batch holds them, and a decoder positioned at its body. */
function recordDecoder(bytes: Buffer): Parameters<Decode>[0] {
  const outer = new Decoder(bytes) as { readVarIntBytes(): Buffer };
  return new Decoder(outer.readVarIntBytes()) as Parameters<Decode>[0];
}

// A small deterministic generator, so a failure can be reproduced.
function* records(count: number): Generator<Parameters<typeof encodeRecord>[0]> {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const names = [
    'ce_type',
    'ce_id',
    'ce_source',
    'hookstream_due_at',
    'é-ключ',
    '🚚',
    'toString',
    '__proto__',
    '',
  ];
  const values = ['', 'shipment.updated', 'ünïcödé ✓', 'x'.repeat(300)];
  for (let i = 0; i < count; i++) {
    const headers: HeaderInput = {};
    for (let h = rand(10); h > 0; h--) {
      const name = names[rand(names.length)] ?? 'x';
      const pick = rand(6);
      // kafkajs cannot encode a null header value, so none is generated.
      const one = pick === 1 ? Buffer.from([0, 255, rand(256)]) : (values[rand(values.length)] ?? '');
      // Repeated names: kafkajs encodes an array as the header repeated.
      Object.defineProperty(headers, name, {
        value: rand(4) === 0 ? [one, values[rand(values.length)] ?? ''] : one,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    yield {
      offsetDelta: rand(100_000),
      timestampDelta: rand(3) === 0 ? 0 : rand(2 ** 30),
      key: rand(4) === 0 ? null : Buffer.from(`ship-${rand(997)}`),
      value: rand(8) === 0 ? null : Buffer.from(values[rand(values.length)] ?? ''),
      headers,
    };
  }
}

describe('decodeRecord', () => {
  const original = kafkajsDecoder();
  const contexts = [
    { firstOffset: '0', firstTimestamp: '1700000000000', magicByte: 2, timestampType: 0 },
    { firstOffset: '9007199254740993', firstTimestamp: '1796000000000', magicByte: 2, isControlBatch: true },
    { firstOffset: '17', firstTimestamp: '1', magicByte: 2, timestampType: 1, maxTimestamp: '1796000000123' },
  ];

  it('decodes exactly as kafkajs 2.2.4 does: headers (repeated, inherited names, binary), key, value, offset and timestamp', () => {
    let compared = 0;
    for (const record of records(1000)) {
      const bytes = encodeRecord(record).buffer;
      for (const context of contexts) {
        const ours = decodeRecord(recordDecoder(bytes), context);
        const theirs = original(recordDecoder(bytes), context);
        expect(ours).toStrictEqual(theirs);
        expect(Object.keys(ours.headers)).toEqual(Object.keys(theirs.headers));
        compared++;
      }
    }
    expect(compared).toBe(3000);
    // Thousands of deep comparisons: seconds on a loaded machine, past vitest's 5 s default.
  }, 60_000);

  it('is what kafkajs uses once the package is imported', async () => {
    await import('../../src/index.ts');
    expect(require(KAFKAJS_RECORD_DECODER)).toBe(decodeRecord);
    // Loading the whole package (kafkajs included) took past 5 s beside the other unit suites.
  }, 30_000);
});
