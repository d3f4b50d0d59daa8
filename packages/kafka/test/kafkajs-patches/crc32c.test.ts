import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/kafkajs-patches/crc32c.ts';

const require = createRequire(import.meta.url);
// kafkajs's own implementation, loaded from its file (not through any patched module export).
const kafkajsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (b: Buffer) => number;

describe('crc32c', () => {
  it('matches the check value of CRC-32C', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it("gives kafkajs's checksum for every length and offset alignment", () => {
    let seed = 42;
    const bytes = Buffer.from(
      Array.from({ length: 70_000 }, () => {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
        return seed >>> 24;
      }),
    );
    for (let length = 0; length < 300; length++) {
      for (const start of [0, 1, 3, 7]) {
        const slice = bytes.subarray(start, start + length);
        expect(crc32c(slice)).toBe(kafkajsCrc32c(slice));
      }
    }
    for (const length of [1023, 1024, 4097, 65_536, 69_993]) {
      const slice = bytes.subarray(0, length);
      expect(crc32c(slice)).toBe(kafkajsCrc32c(slice));
    }
    expect(crc32c(Buffer.alloc(1000, 0xff))).toBe(kafkajsCrc32c(Buffer.alloc(1000, 0xff)));
  });
});
