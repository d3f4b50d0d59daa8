import { describe, expect, it } from 'vitest';
import { KafkajsPatchError } from '../../src/errors.ts';
import { installPatches, type KafkajsPatch, PINNED_KAFKAJS } from '../../src/kafkajs-patches/guard.ts';

/** A patch that notes its installs; `lands: false` is one that comes too late. */
function patch(name: string, kind: KafkajsPatch['kind'], lands = true) {
  const installs: string[] = [];
  return {
    installs,
    patch: {
      name,
      kind,
      install: () => {
        installs.push(name);
        return lands;
      },
    } satisfies KafkajsPatch,
  };
}

function env(kafkajsVersion: string, underTest = false) {
  const warnings: string[] = [];
  return { warnings, env: { kafkajsVersion, underTest, warn: (m: string) => warnings.push(m) } };
}

describe('installPatches', () => {
  it('installs every patch, in order and silently, on the pinned kafkajs', () => {
    const a = patch('a', 'performance');
    const b = patch('b', 'correctness');
    const { warnings, env: e } = env(PINNED_KAFKAJS);
    const report = installPatches([a.patch, b.patch], e);
    expect([...report.states]).toEqual([
      ['a', 'installed'],
      ['b', 'installed'],
    ]);
    expect(warnings).toEqual([]);
  });

  it('skips the performance patches on another kafkajs, with one warning naming them', () => {
    const a = patch('a', 'performance');
    const b = patch('b', 'performance');
    const { warnings, env: e } = env('2.2.5');
    const report = installPatches([a.patch, b.patch], e);
    expect(a.installs).toEqual([]);
    expect(b.installs).toEqual([]);
    expect([...report.states.values()]).toEqual(['skipped', 'skipped']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/kafkajs 2\.2\.5 is installed, not 2\.2\.4.*\(a, b\) are skipped/);
  });

  it('refuses on another kafkajs when correctness rests on a patch, before installing any', () => {
    const a = patch('a', 'performance');
    const b = patch('offset-reset', 'correctness');
    const { env: e } = env('2.3.0');
    const refused = () => installPatches([a.patch, b.patch], e);
    expect(refused).toThrow(KafkajsPatchError);
    expect(refused).toThrow(/kafkajs 2\.3\.0 is installed.*offset-reset patch/);
    expect(a.installs).toEqual([]);
  });

  it('a patch that comes too late fails under test', () => {
    const late = patch('record-decoder', 'performance', false);
    const { env: e } = env(PINNED_KAFKAJS, true);
    expect(() => installPatches([late.patch], e)).toThrow(
      expect.objectContaining({ code: 'KAFKAJS_PATCH_LOST', canRetry: false }),
    );
  });

  it('outside tests a late performance patch costs one warning; a late correctness patch refuses', () => {
    const late = patch('record-decoder', 'performance', false);
    const fine = patch('idle-loop', 'performance');
    const { warnings, env: e } = env(PINNED_KAFKAJS);
    const report = installPatches([late.patch, fine.patch], e);
    expect([...report.states]).toEqual([
      ['record-decoder', 'lost'],
      ['idle-loop', 'installed'],
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/record-decoder replaces before @hookstream\/kafka was imported/);
    const needed = patch('offset-reset', 'correctness', false);
    expect(() => installPatches([needed.patch], env(PINNED_KAFKAJS).env)).toThrow(/offset-reset/);
  });
});
