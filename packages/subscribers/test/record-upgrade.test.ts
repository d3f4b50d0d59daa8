import { createCipheriv, randomBytes } from 'node:crypto';
import type { SubscriberRecord } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { openManagedHeaders, sealHeaderValue, withHeaderValue } from '../src/header-seals.ts';
import { newManagedSecret, revealManagedSecret } from '../src/managed-secret.ts';
import { publicRecord } from '../src/public-record.ts';
import { checkCatalog, resealRecord } from '../src/record-upgrade.ts';
import { foldRegistry } from '../src/registry-records.ts';
import type { SecretsKey } from '../src/secrets-key.ts';
import { resolveSigningKeys } from '../src/signing-keys.ts';
import { binding, definition, NOW, newKey, raw, record } from './fixtures.ts';

const key = newKey();
const SECRET = 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';

/** A managed secret sealed as version 1 wrote it: AES-256-GCM, the name alone as associated data. */
function v1Seal(k: SecretsKey, name: string, plaintext: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', k.key, iv);
  cipher.setAAD(Buffer.from(`hookstream.subscriber-secret.v1:${name}`, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    alg: 'A256GCM' as const,
    keyId: k.id,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    createdAt: '2026-05-01T00:00:00.000Z',
  };
}

function v1Managed(name: string): SubscriberRecord {
  return record(name, {
    version: 1,
    secret: { managed: true, current: v1Seal(key, name, SECRET), previous: [] },
  });
}

describe('checkCatalog', () => {
  it('lists what the new rules refuse or a fleet would skip, and why', () => {
    const leaky = { ...record('leaky', { version: 1 }) };
    const snapshot = foldRegistry([
      raw('ok', record('ok')),
      raw('plain-v1', record('plain-v1', { version: 1 })),
      raw('old', v1Managed('old')),
      raw('leaky', {
        ...leaky,
        definition: { ...leaky.definition, headers: { 'X-Leak': { env: 'HOOKSTREAM_SECRETS_KEY' } } },
      }),
      raw(
        'nohdr',
        record('nohdr', { definition: definition('nohdr', { headers: { 'X-Key': { managed: true } } }) }),
      ),
      raw('events/ok', { registeredAt: NOW.toISOString() }),
    ]);
    const check = checkCatalog(snapshot, { secretsKey: undefined, now: NOW });
    expect(check.checked).toBe(5);
    expect(check.versions).toEqual({ 1: 2, 2: 2 });
    expect(check.sealsOpened).toBe(false);
    const byName = Object.fromEntries(check.findings.map((f) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual(['leaky', 'nohdr', 'old']);
    expect(byName.leaky).toMatchObject({
      verdict: 'refused',
      version: null,
      why: expect.stringContaining('HOOKSTREAM_HEADER_'),
    });
    expect(byName.old).toMatchObject({
      verdict: 'skipped',
      version: 1,
      fix: 'hookstream subscribers reseal --all',
    });
    expect(byName.nohdr).toMatchObject({
      verdict: 'skipped',
      fix: 'hookstream subscribers header set nohdr X-Key',
    });
  });

  it('with the key, lists nothing more of a version-1 record without seals', () => {
    const check = checkCatalog(foldRegistry([raw('plain-v1', record('plain-v1', { version: 1 }))]), {
      secretsKey: key,
      now: NOW,
    });
    expect(check).toMatchObject({ checked: 1, sealsOpened: true, findings: [] });
  });

  it('with the key, also opens every seal and lists those that do not open', () => {
    const moved = record('moved', { secret: newManagedSecret(key, binding('moved'), NOW) });
    const byHand = { ...moved, definition: { ...moved.definition, url: 'https://attacker.example/' } };
    const check = checkCatalog(
      foldRegistry([
        raw('moved', byHand),
        raw('fine', record('fine', { secret: newManagedSecret(key, binding('fine'), NOW) })),
      ]),
      {
        secretsKey: key,
        now: NOW,
      },
    );
    expect(check.findings).toEqual([
      expect.objectContaining({
        name: 'moved',
        verdict: 'skipped',
        why: expect.stringContaining('does not authenticate'),
      }),
    ]);
  });
});

describe('resealRecord', () => {
  it('moves a version-1 seal to the new binding, keeping the secret; after it the old one is refused', async () => {
    const old = v1Managed('old');
    await expect(resolveSigningKeys(old, { secretsKey: key, now: NOW })).rejects.toMatchObject({
      code: 'OLD_SEAL',
    });
    const outcome = resealRecord(old, key, NOW);
    expect(outcome).toMatchObject({ name: 'old', from: 1, action: 'resealed' });
    const next = outcome.record;
    if (next === null || next.secret === undefined || !('managed' in next.secret))
      throw new Error('expected a record');
    expect(next.version).toBe(2);
    expect(revealManagedSecret(key, binding('old'), next.secret, NOW).current).toBe(SECRET);
    expect(resealRecord(next, key, NOW)).toMatchObject({ action: 'current', record: null });
    // The old record written again by hand (a catalog writer replaying it) is refused, not signed with.
    await expect(resolveSigningKeys(old, { secretsKey: key, now: NOW })).rejects.toMatchObject({
      code: 'OLD_SEAL',
    });
  });

  it('rewrites a version-1 record without seals as version 2, and fails on a seal that does not open', () => {
    expect(resealRecord(record('p', { version: 1 }), key, NOW)).toMatchObject({
      action: 'rewritten',
      record: { version: 2 },
    });
    expect(() => resealRecord(v1Managed('old'), newKey(), NOW)).toThrow(
      expect.objectContaining({ code: 'WRONG_SECRETS_KEY' }),
    );
  });
});

describe('managed headers', () => {
  const withHeader = record('h', {
    definition: definition('h', { headers: { Authorization: { managed: true } } }),
  });

  it('are sealed for the subscriber, its origin and the header name, and opened for requests', () => {
    const set = withHeaderValue(withHeader, key, 'Authorization', 'Bearer abc', NOW);
    expect(JSON.stringify(set)).not.toContain('Bearer abc');
    const seal = set.sealedHeaders?.Authorization;
    if (seal === undefined) throw new Error('expected a sealed header');
    // What tools show: which key sealed it and when, never the ciphertext.
    expect(publicRecord(set).sealedHeaders).toEqual({
      Authorization: { keyId: key.id, createdAt: NOW.toISOString() },
    });
    expect(openManagedHeaders(set, key)).toEqual({ Authorization: 'Bearer abc' });
    // The same seal under another header name does not open: a value cannot change header.
    const renamed = {
      ...set,
      definition: definition('h', { headers: { Other: { managed: true } } }),
      sealedHeaders: { Other: seal },
    };
    expect(() => openManagedHeaders(renamed, key)).toThrow(
      expect.objectContaining({ code: 'SECRET_UNREADABLE' }),
    );
  });

  it('refuse a header the definition does not declare managed, a bad value, and a missing value', () => {
    expect(() => withHeaderValue(record('h'), key, 'Authorization', 'x', NOW)).toThrow(
      expect.objectContaining({ code: 'NOT_MANAGED' }),
    );
    expect(() => sealHeaderValue(key, binding('h'), 'X', 'a\r\nb', NOW)).toThrow(
      expect.objectContaining({ code: 'BAD_HEADER_VALUE' }),
    );
    expect(() => openManagedHeaders(withHeader, key)).toThrow(
      expect.objectContaining({ code: 'NO_HEADER_VALUE', canRetry: true }),
    );
  });
});
