import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import '../../src/index.ts';
import { kafkajsPatches } from '../../src/kafkajs-patches/install.ts';

const require = createRequire(import.meta.url);
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('the kafkajs patches the package installs', () => {
  it('are all in place once the package is imported, on the pinned kafkajs', () => {
    expect(kafkajsPatches.kafkajsVersion).toBe(
      (require('kafkajs/package.json') as { version: string }).version,
    );
    expect([...kafkajsPatches.states]).toEqual([
      ['record-decoder', 'installed'],
      ['produce-retry', 'installed'],
      ['produce-encoding', 'installed'],
      ['idle-loop', 'installed'],
      ['paused-fetch', 'installed'],
      ['fetch-slots', 'installed'],
      ['offset-out-of-range', 'installed'],
      ['rejoin-barrier', 'installed'],
    ]);
  });

  it('are each listed in the README with a test that exists', () => {
    const readme = readFileSync(`${packageRoot}src/kafkajs-patches/README.md`, 'utf8');
    for (const name of kafkajsPatches.states.keys()) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      expect(row, name).toBeDefined();
      const tests = [...(row ?? '').matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((m) => m[1]);
      expect(tests.length, name).toBeGreaterThan(0);
      for (const test of tests) expect(existsSync(`${packageRoot}${test}`), test).toBe(true);
    }
  });
});
