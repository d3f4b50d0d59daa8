import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { avroWriters, wireFormat } from '../src/avro-wire.ts';

const require = createRequire(import.meta.url);
const { encode } = require('@kafkajs/confluent-schema-registry/dist/wireEncoder') as {
  encode(registryId: number, payload: Buffer): Buffer;
};

describe('wireFormat', () => {
  it("frames Avro bytes exactly as the registry client's encoder does", () => {
    for (const id of [1, 2, 255, 256, 65_537, 2 ** 31 - 1]) {
      for (const payload of [Buffer.alloc(0), Buffer.from([1]), Buffer.from('x'.repeat(1500))]) {
        expect(wireFormat(id, payload).equals(encode(id, payload))).toBe(true);
      }
    }
  });
});

describe('avroWriters', () => {
  it('keeps the types it could fetch and leaves the others to registry.encode', async () => {
    const type = { toBuffer: () => Buffer.alloc(0) };
    const registry = {
      getSchema: async (id: number) => {
        if (id === 2) throw new Error('registry down');
        return type as never;
      },
    };
    const writers = await avroWriters(
      registry,
      new Map([
        ['a.b', 1],
        ['c.d', 2],
        ['e.f', 1],
      ]),
    );
    expect([...writers.keys()]).toEqual([1]);
    expect(writers.get(1)).toBe(type);
  });
});
