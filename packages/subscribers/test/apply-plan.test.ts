import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSubscriberSpec, SubscriberRecord, SubscriberSpec } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { droppedSeals, planApply, recordsForPlan } from '../src/apply-plan.ts';
import { loadDefinitionFiles } from '../src/definition-files.ts';
import { openManagedHeaders, sealHeaderValue } from '../src/header-seals.ts';
import { newManagedSecret, revealManagedSecret } from '../src/managed-secret.ts';
import { openSecret, SIGNING } from '../src/secret-box.ts';
import { pausedRecord, resumedRecord } from '../src/state-changes.ts';
import { diffValues, formatChange } from '../src/value-diff.ts';
import { binding, definition, NOW, newKey, record } from './fixtures.ts';

const file = (spec: Record<string, unknown>, path = 'a.json') => ({ path, spec: SubscriberSpec.parse(spec) });
const key = newKey();
const managedState = newManagedSecret(key, binding('m'), NOW);

describe('planApply', () => {
  const current = new Map<string, SubscriberRecord>([
    ['a', record('a')],
    ['b', record('b', { secret: { env: 'HOOKSTREAM_SECRET_B' } })],
    ['m', record('m', { definition: definition('m'), secret: managedState })],
    ['p', pausedRecord(record('p'), { reason: 'maintenance', by: 'ops', now: NOW })],
  ]);

  it.each([
    ['a new name is created', { name: 'new', url: 'https://x.example.com/' }, 'created', false],
    [
      'the same definition is unchanged',
      { name: 'a', url: 'https://a.example.com/hook' },
      'unchanged',
      false,
    ],
    [
      'defaults written out are unchanged',
      { name: 'a', url: 'https://a.example.com/hook', concurrency: 10 },
      'unchanged',
      false,
    ],
    [
      'a new rate is changed',
      { name: 'a', url: 'https://a.example.com/hook', rate: { perSecond: 5 } },
      'changed',
      false,
    ],
    [
      'the same env secret is unchanged',
      { name: 'b', url: 'https://b.example.com/hook', secret: { env: 'HOOKSTREAM_SECRET_B' } },
      'unchanged',
      false,
    ],
    ['dropping the secret is changed', { name: 'b', url: 'https://b.example.com/hook' }, 'changed', false],
    [
      'managed re-applied is unchanged (the secret is kept)',
      { name: 'm', url: 'https://m.example.com/hook', secret: { managed: true } },
      'unchanged',
      false,
    ],
    [
      'env → managed generates a secret',
      { name: 'b', url: 'https://b.example.com/hook', secret: { managed: true } },
      'changed',
      true,
    ],
    [
      'a new managed subscriber generates a secret',
      { name: 'n', url: 'https://n.example.com/', secret: { managed: true } },
      'created',
      true,
    ],
    [
      'a paused subscriber re-applied is unchanged',
      { name: 'p', url: 'https://p.example.com/hook' },
      'unchanged',
      false,
    ],
  ])('%s', (_label, spec, action, generates) => {
    const [plan] = planApply(current, [file(spec)]);
    expect(plan?.action).toBe(action);
    expect(plan?.generatesSecret).toBe(generates);
    expect(plan?.changes.length === 0).toBe(action === 'unchanged');
  });

  it('refuses a tenant that changes on an existing subscriber, naming the field; a new one may have any', () => {
    const withTenant = new Map([
      ...current,
      ['t', record('t', { version: 4, definition: definition('t', { tenant: 'acme' }) })],
    ]);
    const refused = (spec: Record<string, unknown>) => {
      try {
        planApply(withTenant, [file(spec, 'defs/x.json')]);
        return null;
      } catch (err) {
        return err as { code: string; message: string; canRetry: boolean };
      }
    };
    const gained = refused({ name: 'a', url: 'https://a.example.com/hook', tenant: 'acme' });
    expect(gained?.code).toBe('TENANT_CHANGED');
    expect(gained?.canRetry).toBe(false);
    expect(gained?.message).toMatch(/^a \(defs\/x\.json\): "tenant" cannot change \(null → "acme"\); delete/);
    expect(refused({ name: 't', url: 'https://t.example.com/hook', tenant: 'globex' })?.message).toMatch(
      /"tenant" cannot change \("acme" → "globex"\)/,
    );
    expect(refused({ name: 't', url: 'https://t.example.com/hook' })?.code).toBe('TENANT_CHANGED');
    expect(refused({ name: 't', url: 'https://t.example.com/hook', tenant: 'acme' })).toBeNull();
    const [created] = planApply(withTenant, [
      file({ name: 'n', url: 'https://n.example.com/', tenant: 'acme' }),
    ]);
    expect(created?.action).toBe('created');
  });

  it('names each changed field with before and after', () => {
    const [plan] = planApply(current, [
      file({
        name: 'a',
        url: 'https://a.example.com/v2',
        rate: { perSecond: 5 },
        eventTypes: ['key.revoked'],
      }),
    ]);
    expect(plan?.changes.map(formatChange)).toEqual([
      'eventTypes: ["*"] → ["key.revoked"]',
      'rate.perSecond: 50 → 5',
      'url: "https://a.example.com/hook" → "https://a.example.com/v2"',
    ]);
  });

  it('shows a URL change redacted, and says so when only its credentials or query values changed', () => {
    expect(
      formatChange({
        path: 'url',
        before: 'https://ops:old-pass@a.example.com/hook?key=k1',
        after: 'https://a.example.com/v2?key=k2',
      }),
    ).toBe('url: "https://a.example.com/hook?key=REDACTED" → "https://a.example.com/v2?key=REDACTED"');
    expect(
      formatChange({
        path: 'url',
        before: 'https://ops:old-pass@a.example.com/hook',
        after: 'https://ops:new-pass@a.example.com/hook',
      }),
    ).toBe('url: "https://a.example.com/hook" → "https://a.example.com/hook" (user info or query values)');
  });

  it('never shows sealed material in a diff, only the reference', () => {
    const [plan] = planApply(current, [
      file({ name: 'm', url: 'https://m.example.com/hook', secret: { env: 'HOOKSTREAM_SECRET_M' } }),
    ]);
    expect(plan?.changes.map(formatChange)).toEqual([
      'secret: {"managed":true} → {"env":"HOOKSTREAM_SECRET_M"}',
    ]);
  });
});

describe('recordsForPlan', () => {
  const current = new Map<string, SubscriberRecord>([
    ['m', record('m', { secret: managedState })],
    ['p', pausedRecord(record('p'), { reason: 'r', by: 'ops', now: NOW })],
  ]);

  it('writes created and changed only, keeps state, createdAt and an existing managed secret', () => {
    const plan = planApply(current, [
      file({ name: 'm', url: 'https://m.example.com/v2', secret: { managed: true } }),
      file({ name: 'p', url: 'https://p.example.com/v2' }),
      file({ name: 'x', url: 'https://x.example.com/' }),
    ]);
    const later = new Date('2026-06-02T00:00:00.000Z');
    const records = recordsForPlan(plan, current, { now: later, secretsKey: undefined });
    expect(records.map((r) => r.definition.name)).toEqual(['m', 'p', 'x']);
    expect(records[0]?.secret).toBe(managedState);
    expect(records[1]?.state.kind).toBe('paused');
    expect(records[1]?.createdAt).toBe('2026-05-01T00:00:00.000Z');
    expect(records[2]).toMatchObject({ state: { kind: 'active' }, createdAt: later.toISOString() });
  });

  it('generates and seals a managed secret, and refuses without the key', () => {
    const plan = planApply(current, [
      file({ name: 'n', url: 'https://n.example.com/', secret: { managed: true } }),
    ]);
    expect(() => recordsForPlan(plan, current, { now: NOW, secretsKey: undefined })).toThrow(
      expect.objectContaining({ code: 'NO_SECRETS_KEY' }),
    );
    const [r] = recordsForPlan(plan, current, { now: NOW, secretsKey: key, generate: () => 'whsec_AAAA' });
    const n = { version: 2, subscriber: 'n', origin: 'https://n.example.com' } as const;
    expect(r?.secret && 'managed' in r.secret && openSecret(key, n, SIGNING, r.secret.current)).toBe(
      'whsec_AAAA',
    );
    expect(r?.version).toBe(2);
  });

  it('seals again for the new origin when the URL moves to another host, and needs the key for it', () => {
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
    const m = record('m', {
      definition: definition('m', { headers: { Authorization: { managed: true } } }),
      secret: newManagedSecret(key, binding('m'), NOW, () => secret),
      sealedHeaders: { Authorization: sealHeaderValue(key, binding('m'), 'Authorization', 'Bearer t', NOW) },
    });
    const moved = {
      name: 'm',
      url: 'https://elsewhere.example.net/hook',
      secret: { managed: true },
      headers: m.definition.headers,
    };
    const plan = planApply(new Map([['m', m]]), [file(moved)]);
    expect(plan[0]).toMatchObject({ reseals: true, headersWithoutValue: [] });
    expect(() => recordsForPlan(plan, new Map([['m', m]]), { now: NOW, secretsKey: undefined })).toThrow(
      expect.objectContaining({ code: 'NO_SECRETS_KEY' }),
    );
    const [r] = recordsForPlan(plan, new Map([['m', m]]), { now: NOW, secretsKey: key });
    if (r?.secret === undefined || !('managed' in r.secret)) throw new Error('expected a managed secret');
    const there = { version: 2, subscriber: 'm', origin: 'https://elsewhere.example.net' } as const;
    expect(revealManagedSecret(key, there, r.secret, NOW).current).toBe(secret);
    expect(openManagedHeaders(r, key)).toEqual({ Authorization: 'Bearer t' });
    // The old seals do not open for the new origin: a hand-made URL change gets no signed request.
    expect(() => openManagedHeaders({ ...m, definition: r.definition }, key)).toThrow(
      expect.objectContaining({ code: 'SECRET_UNREADABLE' }),
    );
    // A path change keeps the origin: nothing to seal again, no key needed.
    const path = planApply(new Map([['m', m]]), [file({ ...moved, url: 'https://m.example.com/v2' })]);
    expect(path[0]?.reseals).toBe(false);
    expect(recordsForPlan(path, new Map([['m', m]]), { now: NOW, secretsKey: undefined })[0]?.secret).toBe(
      m.secret,
    );
  });

  it("a tenant's move to a new origin drops the operator's sealed headers, keeps its own signing secret, and droppedSeals names them", () => {
    const m = record('m', {
      definition: definition('m', { headers: { Authorization: { managed: true } } }),
      secret: newManagedSecret(key, binding('m'), NOW),
      sealedHeaders: { Authorization: sealHeaderValue(key, binding('m'), 'Authorization', 'Bearer t', NOW) },
    });
    const current = new Map([['m', m]]);
    const moved = {
      name: 'm',
      url: 'https://elsewhere.example.net/hook',
      secret: { managed: true },
      headers: m.definition.headers,
    };
    const options = { now: NOW, secretsKey: key, dropOperatorSealsOnMove: true };
    const [r] = recordsForPlan(planApply(current, [file(moved)]), current, options);
    if (r === undefined) throw new Error('nothing written');
    expect(r.sealedHeaders).toBeUndefined();
    expect(droppedSeals(m, r)).toEqual(['headers.Authorization']);
    if (r.secret === undefined || !('managed' in r.secret)) throw new Error('expected a managed secret');
    const there = { version: 2, subscriber: 'm', origin: 'https://elsewhere.example.net' } as const;
    expect(revealManagedSecret(key, there, r.secret, NOW).current).toMatch(/^whsec_/);
    // Within its origin nothing is dropped.
    const [same] = recordsForPlan(
      planApply(current, [file({ ...moved, url: 'https://m.example.com/v2' })]),
      current,
      options,
    );
    if (same === undefined) throw new Error('nothing written');
    expect(droppedSeals(m, same)).toEqual([]);
    expect(same.sealedHeaders).toEqual(m.sealedHeaders);
  });

  it('says which managed headers have no value yet, and drops the seal of a header no longer managed', () => {
    const m = record('m', {
      definition: definition('m', { headers: { 'X-Key': { managed: true } } }),
      sealedHeaders: { 'X-Key': sealHeaderValue(key, binding('m'), 'X-Key', 'k', NOW) },
    });
    const current = new Map([['m', m]]);
    const added = planApply(current, [
      file({
        name: 'm',
        url: 'https://m.example.com/hook',
        headers: { 'X-Key': { managed: true }, 'X-Other': { managed: true } },
      }),
    ]);
    expect(added[0]?.headersWithoutValue).toEqual(['X-Other']);
    const dropped = planApply(current, [
      file({ name: 'm', url: 'https://m.example.com/hook', headers: { 'X-Key': 'plain' } }),
    ]);
    expect(
      recordsForPlan(dropped, current, { now: NOW, secretsKey: undefined })[0]?.sealedHeaders,
    ).toBeUndefined();
  });

  it('refuses to carry a version-1 seal over (OLD_SEAL), writing nothing', () => {
    const old = new Map([['m', record('m', { version: 1, secret: managedState })]]);
    const plan = planApply(old, [
      file({ name: 'm', url: 'https://m.example.com/v2', secret: { managed: true } }),
    ]);
    expect(() => recordsForPlan(plan, old, { now: NOW, secretsKey: key })).toThrow(
      expect.objectContaining({ code: 'OLD_SEAL' }),
    );
  });
});

describe('record versions', () => {
  it('writes version 2 unless the definition uses a version-3 field, and a pause keeps the version', () => {
    const plan = planApply(
      new Map(),
      [
        file({ name: 'plain', url: 'https://x.example.com/' }),
        file({ name: 'warned', url: 'https://x.example.com/', retentionWarningMs: 3_600_000 }),
      ],
      NOW,
    );
    const [plain, warned] = recordsForPlan(plan, new Map(), { now: NOW, secretsKey: undefined });
    expect(plain?.version).toBe(2);
    expect(warned?.version).toBe(3);
    if (warned === undefined) throw new Error('no record');
    expect(pausedRecord(warned, { reason: 'r', by: 'ops', now: NOW }).version).toBe(3);
  });

  it('a required definition owes events from when it first became required; applying it again changes nothing', () => {
    const first = planApply(
      new Map(),
      [file({ name: 'r', url: 'https://r.example.com/', required: true })],
      NOW,
    );
    expect(first[0]?.definition.requiredFrom).toBe(NOW.toISOString());
    const [written] = recordsForPlan(first, new Map(), { now: NOW, secretsKey: undefined });
    if (written === undefined) throw new Error('no record');
    const later = new Date(NOW.getTime() + 86_400_000);
    const again = planApply(
      new Map([['r', written]]),
      [file({ name: 'r', url: 'https://r.example.com/', required: true })],
      later,
    );
    expect(again[0]).toMatchObject({ action: 'unchanged', definition: { requiredFrom: NOW.toISOString() } });
    const given = planApply(
      new Map([['r', written]]),
      [
        file({
          name: 'r',
          url: 'https://r.example.com/',
          required: true,
          requiredFrom: '2026-01-01T00:00:00Z',
        }),
      ],
      later,
    );
    expect(given[0]?.changes.map((c) => c.path)).toEqual(['requiredFrom']);
  });

  it('a record cannot hold a field newer than its version, nor requiredFrom without required', () => {
    const r = record('v');
    expect(
      SubscriberRecord.safeParse({ ...r, definition: { ...r.definition, required: true } }).success,
    ).toBe(false);
    expect(
      SubscriberRecord.safeParse({ ...r, version: 3, definition: { ...r.definition, required: true } })
        .success,
    ).toBe(true);
    expect(
      SubscriberRecord.safeParse({
        ...r,
        version: 3,
        definition: { ...r.definition, requiredFrom: '2026-01-01T00:00:00Z' },
      }).success,
    ).toBe(false);
    expect(
      parseSubscriberSpec({ name: 'v', url: 'https://v.example.com/', requiredFrom: '2026-01-01T00:00:00Z' }),
    ).toEqual({
      ok: false,
      error: 'requiredFrom: only with "required": true',
    });
  });
});

describe('pause and resume', () => {
  it('pauses with reason, who and when; resume of an active record is a no-op', () => {
    const paused = pausedRecord(record('a'), { reason: 'endpoint migration', by: 'alice', now: NOW });
    expect(paused.state).toEqual({
      kind: 'paused',
      reason: 'endpoint migration',
      by: 'alice',
      at: NOW.toISOString(),
    });
    expect(resumedRecord(paused, NOW)?.state).toEqual({ kind: 'active' });
    expect(resumedRecord(record('a'), NOW)).toBeNull();
  });
});

describe('diffValues', () => {
  it.each([
    [{ a: 1 }, { a: 1 }, []],
    [{ a: 1 }, { a: 2 }, ['a: 1 → 2']],
    [{}, { h: { X: 'y' } }, ['h: (absent) → {"X":"y"}']],
    [{ h: { X: 'y' } }, { h: { X: 'z', Y: 'y' } }, ['h.X: "y" → "z"', 'h.Y: (absent) → "y"']],
    [{ l: [1, 2] }, { l: [1] }, ['l: [1,2] → [1]']],
    [{ s: { env: 'A' } }, { s: { file: '/f' } }, ['s.env: "A" → (absent)', 's.file: (absent) → "/f"']],
  ])('%j → %j', (a, b, expected) => {
    expect(diffValues(a, b).map(formatChange)).toEqual(expected);
  });
});

describe('loadDefinitionFiles', () => {
  it('reads a directory, names the file and field of every bad definition, and finds duplicate names', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hs-defs-'));
    await writeFile(
      join(dir, 'a.json'),
      JSON.stringify({ name: 'a', url: 'https://a.example.com/', secret: { file: 'a.secret' } }),
    );
    await writeFile(
      join(dir, 'b.json'),
      JSON.stringify({ name: 'b', url: 'https://b.example.com/', rate: { perSecond: 0 } }),
    );
    await writeFile(join(dir, 'c.json'), '{ not json');
    await writeFile(
      join(dir, 'd.json'),
      JSON.stringify({ name: 'a', url: 'https://d.example.com/', colour: 'red' }),
    );
    await writeFile(join(dir, 'e.json'), JSON.stringify({ name: 'a', url: 'https://e.example.com/' }));
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    await mkdir(join(dir, 'sub'));
    const { files, problems } = await loadDefinitionFiles(dir);
    expect(files.map((f) => f.spec.name)).toEqual(['a', 'a']);
    expect(files[0]?.spec.secret).toEqual({ file: join(dir, 'a.secret') });
    const byFile = Object.fromEntries(problems.map((p) => [p.path.slice(dir.length + 1), p.error]));
    expect(byFile['b.json']).toMatch(/^rate\.perSecond: /);
    expect(byFile['c.json']).toMatch(/^not JSON/);
    expect(byFile['d.json']).toBe('unknown field "colour"');
    expect(byFile['e.json']).toContain('also defined in');
    expect(problems.find((p) => p.path.endsWith('a.json'))?.error).toContain('e.json');
  });

  it('refuses a filter that could never hold against the schemas of the types it takes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hs-defs-'));
    const def = (name: string, filter: unknown, eventTypes = ['shipment.updated']) =>
      writeFile(
        join(dir, `${name}.json`),
        JSON.stringify({ name, url: `https://${name}.example.com/`, eventTypes, filter }),
      );
    await def('ok', { all: [{ prefix: { '/shipment/carrier': 'D' } }, { exact: { region: 'eu' } }] });
    await def('nofield', { exact: { '/shipment/colour': 'red' } });
    await def('notext', { prefix: { '/shipment': 'x' } });
    await def('anytype', { exact: { '/tenant_id': 'acme' } }, ['*']);
    const { files, problems } = await loadDefinitionFiles(dir);
    expect(files.map((f) => f.spec.name).sort()).toEqual(['anytype', 'ok']);
    const byFile = Object.fromEntries(problems.map((p) => [p.path.slice(dir.length + 1), p.error]));
    expect(byFile).toEqual({
      'nofield.json': 'filter.exact./shipment/colour: no field at that path in the data of shipment.updated',
      'notext.json': 'filter.prefix./shipment: prefix needs a text field, and it is record',
    });
  });

  it('reports a missing path instead of throwing', async () => {
    const { problems } = await loadDefinitionFiles('/nonexistent/hookstream.json');
    expect(problems[0]?.error).toMatch(/cannot read/);
  });
});
