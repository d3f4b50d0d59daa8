import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSigningSecret } from '@hookstream/delivery';
import { describe, expect, it } from 'vitest';
import { CatalogError } from '../src/catalog-error.ts';
import {
  generateSigningSecret,
  newManagedSecret,
  revealManagedSecret,
  rotateManagedSecret,
} from '../src/managed-secret.ts';
import { openSecret, SIGNING, sealSecret } from '../src/secret-box.ts';
import { loadSecretsKey, parseSecretsKey } from '../src/secrets-key.ts';
import { resolveSigningKeys } from '../src/signing-keys.ts';
import { binding, NOW, newKey, record } from './fixtures.ts';

const flip = (b64: string, at = 0) => {
  const bytes = Buffer.from(b64, 'base64');
  bytes[at] = (bytes[at] ?? 0) ^ 1;
  return bytes.toString('base64');
};

describe('sealed secrets (AES-256-GCM)', () => {
  const key = newKey();
  const secret = generateSigningSecret();
  const billing = binding('billing');
  const seal = () => sealSecret(key, billing, SIGNING, secret, NOW);

  it('round-trips, and never stores the secret in clear text', () => {
    const sealed = seal();
    expect(JSON.stringify(sealed)).not.toContain(secret.slice(6));
    expect(openSecret(key, billing, SIGNING, sealed)).toBe(secret);
    expect(seal().iv).not.toBe(sealed.iv);
  });

  it('a wrong key is WRONG_SECRETS_KEY, told apart from tampering', () => {
    expect(() => openSecret(newKey(), billing, SIGNING, seal())).toThrow(
      expect.objectContaining({ code: 'WRONG_SECRETS_KEY', canRetry: false }),
    );
  });

  it.each([
    ['ciphertext', (s: ReturnType<typeof sealSecret>) => ({ ...s, ciphertext: flip(s.ciphertext, 3) })],
    ['tag', (s: ReturnType<typeof sealSecret>) => ({ ...s, tag: flip(s.tag) })],
    ['iv', (s: ReturnType<typeof sealSecret>) => ({ ...s, iv: flip(s.iv) })],
  ])('an altered %s is SECRET_UNREADABLE, never garbage', (_what, alter) => {
    expect(() => openSecret(key, billing, SIGNING, alter(seal()))).toThrow(
      expect.objectContaining({ code: 'SECRET_UNREADABLE' }),
    );
  });

  it.each([
    ["another subscriber's record", { ...billing, subscriber: 'shipping' }, SIGNING],
    [
      'a record whose URL points at another origin',
      { ...billing, origin: 'https://attacker.example' },
      SIGNING,
    ],
    ['another port of the same host', { ...billing, origin: 'https://billing.example.com:8443' }, SIGNING],
    ['the role of a previous secret', billing, { kind: 'previous', expiresAt: '2030-01-01T00:00:00.000Z' }],
    ['the role of a header value', billing, { kind: 'header', name: 'Authorization' }],
    ['a version-1 binding (the name only)', { ...billing, version: 1 }, SIGNING],
  ] as const)('a seal moved to %s does not open', (_what, where, role) => {
    expect(() => openSecret(key, where, role, seal())).toThrow(
      expect.objectContaining({ code: 'SECRET_UNREADABLE' }),
    );
  });

  it('seals only with the current binding', () => {
    expect(() => sealSecret(key, binding('billing', 1), SIGNING, secret, NOW)).toThrow(/version 2/);
  });

  it('generates Standard Webhooks secrets of 32 random bytes', () => {
    const s = generateSigningSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(parseSigningSecret(s)).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(s);
  });
});

describe('the secrets key', () => {
  it.each([
    ['', 'no base64'],
    ['not base64!', 'no base64'],
    [randomBytes(16).toString('base64'), '16 bytes'],
    [randomBytes(33).toString('base64'), '33 bytes'],
  ])('refuses %j (%s)', (text, why) => {
    expect(() => parseSecretsKey(text, 'K')).toThrow(expect.objectContaining({ code: 'BAD_SECRETS_KEY' }));
    expect(() => parseSecretsKey(text, 'K')).toThrow(why);
  });

  it('prefers the key file over the environment, and is undefined without either', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hs-key-'));
    const file = join(dir, 'key');
    const fromFile = randomBytes(32).toString('base64');
    await writeFile(file, `${fromFile}\n`);
    const env = { HOOKSTREAM_SECRETS_KEY: randomBytes(32).toString('base64') };
    expect((await loadSecretsKey({ keyFile: file, env }))?.key.toString('base64')).toBe(fromFile);
    expect((await loadSecretsKey({ env }))?.key.toString('base64')).toBe(env.HOOKSTREAM_SECRETS_KEY);
    expect(await loadSecretsKey({ env: {} })).toBeUndefined();
    await expect(loadSecretsKey({ keyFile: join(dir, 'missing') })).rejects.toMatchObject({
      code: 'NO_SECRETS_KEY',
    });
  });
});

describe('rotation and signing keys', () => {
  const key = newKey();
  const first = generateSigningSecret();
  const second = generateSigningSecret();
  const billing = binding('billing');
  const state = newManagedSecret(key, billing, NOW, () => first);

  it('keeps the previous secret until the grace period ends, and signs with both meanwhile', async () => {
    const rotated = rotateManagedSecret(key, billing, state, {
      now: NOW,
      graceMs: 3_600_000,
      generate: () => second,
    });
    expect(rotated.previous.map((p) => p.expiresAt)).toEqual(['2026-06-01T13:00:00.000Z']);
    const r = record('billing', { secret: rotated });
    const during = await resolveSigningKeys(r, { secretsKey: key, now: NOW });
    expect(during?.current).toEqual(parseSigningSecret(second));
    expect(during?.previous).toEqual([parseSigningSecret(first)]);
    const after = await resolveSigningKeys(r, { secretsKey: key, now: new Date('2026-06-01T13:00:00.001Z') });
    expect(after?.previous).toEqual([]);
    expect(revealManagedSecret(key, billing, rotated, NOW)).toMatchObject({
      current: second,
      previous: [{ secret: first }],
    });
  });

  it('a grace of 0 drops the old secret at once; an out-of-range grace is refused', () => {
    expect(rotateManagedSecret(key, billing, state, { now: NOW, graceMs: 0 }).previous).toEqual([]);
    expect(() => rotateManagedSecret(key, billing, state, { now: NOW, graceMs: -1 })).toThrow(CatalogError);
  });

  it("a previous secret's expiry is authenticated: moved later by hand, it no longer signs", async () => {
    const rotated = rotateManagedSecret(key, billing, state, { now: NOW, graceMs: 3_600_000 });
    const extended = {
      ...rotated,
      previous: rotated.previous.map((p) => ({ ...p, expiresAt: '2027-01-01T00:00:00.000Z' })),
    };
    await expect(
      resolveSigningKeys(record('billing', { secret: extended }), { secretsKey: key, now: NOW }),
    ).rejects.toMatchObject({ code: 'SECRET_UNREADABLE' });
  });

  it('a version-1 record (seals bound to the name only) is refused with OLD_SEAL', async () => {
    await expect(
      resolveSigningKeys(record('billing', { version: 1, secret: state }), { secretsKey: key, now: NOW }),
    ).rejects.toMatchObject({
      code: 'OLD_SEAL',
      message: expect.stringContaining('subscribers reseal --all'),
    });
  });

  it('rotating under a wrong key fails before anything is generated', () => {
    expect(() => rotateManagedSecret(newKey(), billing, state, { now: NOW, graceMs: 1000 })).toThrow(
      expect.objectContaining({ code: 'WRONG_SECRETS_KEY' }),
    );
  });

  it('a managed secret without the key, or with a wrong one, is a coded error', async () => {
    const r = record('billing', { secret: state });
    await expect(resolveSigningKeys(r, {})).rejects.toMatchObject({
      code: 'NO_SECRETS_KEY',
      canRetry: false,
    });
    await expect(resolveSigningKeys(r, { secretsKey: newKey() })).rejects.toMatchObject({
      code: 'WRONG_SECRETS_KEY',
    });
    const tampered = { ...state, current: { ...state.current, tag: flip(state.current.tag) } };
    await expect(
      resolveSigningKeys(record('billing', { secret: tampered }), { secretsKey: key }),
    ).rejects.toMatchObject({
      code: 'SECRET_UNREADABLE',
    });
  });

  it('an authenticated plaintext that is no signing secret is refused (BAD_SECRET)', async () => {
    const bad = newManagedSecret(key, billing, NOW, () => 'whsec_short');
    await expect(
      resolveSigningKeys(record('billing', { secret: bad }), { secretsKey: key }),
    ).rejects.toMatchObject({
      code: 'BAD_SECRET',
    });
  });

  it('env and file references resolve as today; none means unsigned', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hs-sec-'));
    await writeFile(join(dir, 'secret'), `${first}\n`);
    expect(await resolveSigningKeys(record('a'))).toBeUndefined();
    expect(
      await resolveSigningKeys(record('a', { secret: { env: 'HOOKSTREAM_SECRET_S' } }), {
        env: { HOOKSTREAM_SECRET_S: first },
      }),
    ).toEqual({
      current: parseSigningSecret(first),
      previous: [],
    });
    await expect(
      resolveSigningKeys(record('a', { secret: { env: 'HOOKSTREAM_SECRET_S' } }), { env: {} }),
    ).rejects.toMatchObject({
      code: 'NO_SECRET',
      canRetry: true,
    });
    expect(
      (await resolveSigningKeys(record('a', { secret: { file: join(dir, 'secret') } })))?.current,
    ).toEqual(parseSigningSecret(first));
    await expect(
      resolveSigningKeys(record('a', { secret: { file: join(dir, 'nope') } })),
    ).rejects.toMatchObject({
      code: 'NO_SECRET',
    });
  });
});
