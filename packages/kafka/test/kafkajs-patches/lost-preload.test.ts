import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('a lost preload', () => {
  it('fails under test: kafkajs loaded its batch decoder before the package was imported', async () => {
    // What a consumer's first fetch loads; this file's worker has imported nothing of the package.
    require('kafkajs/src/protocol/recordBatch/v0/decoder.js');
    await expect(import('../../src/index.ts')).rejects.toMatchObject({
      code: 'KAFKAJS_PATCH_LOST',
      message: expect.stringMatching(/record-decoder/),
    });
  });
});
