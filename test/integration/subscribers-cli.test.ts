import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_TOPIC } from '@hookstream/contracts';
import { parseSigningSecret, signPayloadWithKeys } from '@hookstream/delivery';
import { createKafka, readTopic } from '@hookstream/kafka';
import { readAuditTrail, SubscriberCatalog } from '@hookstream/subscribers';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-subscribers-cli', quiet: true });
const secretsKey = randomBytes(32).toString('base64');
const env = {
  ...process.env,
  HOOKSTREAM_SECRETS_KEY: secretsKey,
  HOOKSTREAM_EVENTS_TOPIC: uniqueName('events'),
};
const managed = uniqueName('cat-m');
const plain = uniqueName('cat-p');

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return runCli(['subscribers', ...args], { ...env, ...extraEnv });
}

async function json<T>(...args: string[]): Promise<T> {
  const run = await cli([...args, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** Every record of the catalog topic under these keys, raw. */
async function registryRecords(...keys: string[]) {
  return readTopic(kafka, {
    topic: CATALOG_TOPIC,
    keep: (r) => r.key !== null && keys.includes(r.key),
    purpose: 'test-subscribers-cli',
  });
}

async function definitionDir(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-catalog-'));
  for (const [name, content] of Object.entries(files))
    await writeFile(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

interface ApplyOut {
  dryRun: boolean;
  written: boolean;
  subscribers: { name: string; action: string; changes: { path: string }[]; generatesSecret: boolean }[];
}
interface SecretOut {
  managed: boolean;
  current: string;
  previous: { secret: string; expiresAt: string }[];
}

describe('hookstream subscribers', () => {
  const definitions = {
    [`${managed}.json`]: {
      name: managed,
      url: 'https://managed.example.com/hook',
      secret: { managed: true },
    },
    [`${plain}.json`]: {
      name: plain,
      url: 'https://plain.example.com/hook',
      secret: { env: 'HOOKSTREAM_SECRET_PLAIN' },
    },
  };
  let firstSecret = '';

  it('apply creates both, generates the managed secret, and never writes it in clear text', async () => {
    const dir = await definitionDir(definitions);
    const out = await json<ApplyOut>('apply', dir);
    expect(out.subscribers.map((s) => [s.name, s.action, s.generatesSecret]).sort()).toEqual(
      [
        [managed, 'created', true],
        [plain, 'created', false],
      ].sort(),
    );
    const secret = await json<SecretOut>('secret', 'show', managed);
    expect(secret.current).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    firstSecret = secret.current;
    const raw = (await registryRecords(managed)).map((r) => r.value?.toString() ?? '').join('\n');
    expect(raw).toContain('"A256GCM"');
    expect(raw).not.toContain(firstSecret.slice('whsec_'.length));
    const list = await json<{ subscribers: { name: string; state: { kind: string }; host: string }[] }>(
      'list',
    );
    expect(list.subscribers.find((s) => s.name === managed)).toMatchObject({
      state: { kind: 'active' },
      host: 'managed.example.com',
    });
  });

  it('apply again: unchanged, nothing written, the managed secret kept', async () => {
    const before = (await registryRecords(managed, plain)).length;
    const out = await json<ApplyOut>('apply', await definitionDir(definitions));
    expect(out.subscribers.map((s) => s.action)).toEqual(['unchanged', 'unchanged']);
    expect((await registryRecords(managed, plain)).length).toBe(before);
    expect((await json<SecretOut>('secret', 'show', managed)).current).toBe(firstSecret);
  });

  it('secret show is a read in the audit trail, naming the OS user, never the secret', async () => {
    const { records } = await readAuditTrail(kafka, { subscriber: managed });
    const reads = records.filter((r) => r.action === 'subscriber.secret_read');
    // The two shows above: at the first apply, and after the apply again.
    expect(reads.map((r) => [r.subscriber, r.actor.kind])).toEqual([
      [managed, 'user'],
      [managed, 'user'],
    ]);
    expect(JSON.stringify(records)).not.toContain(firstSecret.slice('whsec_'.length));
    // A secret that is not managed is only said where it lives: nothing read, nothing recorded.
    await json('secret', 'show', plain);
    expect((await readAuditTrail(kafka, { subscriber: plain })).records.map((r) => r.action)).not.toContain(
      'subscriber.secret_read',
    );
  });

  it('a dry run shows the change and writes nothing; the real apply says changed', async () => {
    const changed = {
      name: plain,
      url: 'https://plain.example.com/v2',
      secret: { env: 'HOOKSTREAM_SECRET_PLAIN' },
    };
    const dir = await definitionDir({ 'p.json': changed });
    const before = (await registryRecords(plain)).length;
    const dry = await cli(['apply', dir, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would be changed  ${plain}`);
    expect(dry.stdout).toContain('url: "https://plain.example.com/hook" → "https://plain.example.com/v2"');
    expect((await registryRecords(plain)).length).toBe(before);
    const out = await json<ApplyOut>('apply', dir);
    expect(out.subscribers[0]).toMatchObject({ action: 'changed', changes: [{ path: 'url' }] });
    expect((await registryRecords(plain)).length).toBe(before + 1);
  });

  it('one bad definition refuses the whole apply, naming the file and field; nothing is written', async () => {
    const fresh = uniqueName('cat-new');
    const dir = await definitionDir({
      'good.json': { name: fresh, url: 'https://fresh.example.com/' },
      'bad.json': { name: uniqueName('cat-bad'), url: 'https://bad.example.com/', rate: { perSecond: -5 } },
    });
    const run = await cli(['apply', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bad\.json: rate\.perSecond: /);
    expect(run.stderr).toContain('nothing was written');
    expect(await registryRecords(fresh)).toEqual([]);
  });

  it("apply refuses the '.'/'_' twin of a held name; list names a pair held from before", async () => {
    const stem = uniqueName('cat-tw');
    const held = `${stem}_a`;
    const twin = `${stem}.a`;
    await json<ApplyOut>(
      'apply',
      await definitionDir({ 'h.json': { name: held, url: 'https://h.example.com/' } }),
    );
    const refused = await cli([
      'apply',
      await definitionDir({ 't.json': { name: twin, url: 'https://t.example.com/' } }),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`"${twin}": the name is unavailable`);
    expect((await registryRecords(twin)).length).toBe(0);

    // As a raw catalog writer, or a version before the rule, could have left it.
    const catalog = new SubscriberCatalog(kafka);
    const record = (await catalog.read()).subscribers.get(held);
    if (record === undefined) throw new Error(`${held} was not written`);
    await catalog.write([{ ...record, definition: { ...record.definition, name: twin } }]);
    const list = await json<{ nameCollisions: string[][] }>('list');
    expect(list.nameCollisions).toContainEqual([twin, held].sort());
    const table = await cli(['list']);
    expect(table.stderr).toContain("names Kafka cannot tell apart ('.' against '_')");
    expect(table.stderr).toContain(`${[twin, held].sort().join('  ')}`);
  });

  it('pause holds its reason and who; resume makes it active again', async () => {
    const paused = await json<{ state: { kind: string; reason: string; by: string } }>(
      'pause',
      plain,
      '--reason',
      'endpoint migration',
      '--by',
      'test',
    );
    expect(paused.state).toMatchObject({ kind: 'paused', reason: 'endpoint migration', by: 'test' });
    const shown = await json<{ state: { kind: string }; secret: unknown; definition: { url: string } }>(
      'show',
      plain,
    );
    expect(shown.state.kind).toBe('paused');
    expect(shown.definition.url).toBe('https://plain.example.com/v2');
    expect((await json<{ state: { kind: string } }>('resume', plain)).state).toEqual({ kind: 'active' });
  });

  it('rotate keeps the old secret signing for the grace period; a wrong key is a clear error', async () => {
    const rotated = await json<SecretOut>('secret', 'rotate', managed, '--grace', '2h');
    expect(rotated.current).not.toBe(firstSecret);
    expect(rotated.previous).toHaveLength(1);
    expect(rotated.previous[0]?.secret).toBe(firstSecret);
    expect(Date.parse(rotated.previous[0]?.expiresAt ?? '') - Date.now()).toBeGreaterThan(7_000_000);
    // What the fleet will send during the grace period: both signatures, either secret verifies.
    const body = '{"event_id":"evt-1"}';
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt-1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signPayloadWithKeys(
        [parseSigningSecret(rotated.current), parseSigningSecret(firstSecret)],
        'evt-1',
        ts,
        body,
      ),
    };
    for (const held of [rotated.current, firstSecret])
      expect(new Webhook(held).verify(body, headers)).toEqual({ event_id: 'evt-1' });
    const wrong = await cli(['secret', 'show', managed], {
      HOOKSTREAM_SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('WRONG_SECRETS_KEY');
    expect(wrong.stdout).not.toContain('whsec_');
    const none = await cli(['secret', 'show', managed], { HOOKSTREAM_SECRETS_KEY: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('NO_SECRETS_KEY');
    const notManaged = await cli(['secret', 'rotate', plain]);
    expect(notManaged.code).toBe(1);
    expect(notManaged.stderr).toContain('NOT_MANAGED');
  });

  it('delete tombstones the record; purge without --yes off a terminal is refused', async () => {
    const refused = await cli(['delete', managed, '--purge']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect((await json<{ deleted: boolean }>('delete', plain)).deleted).toBe(true);
    const purged = await json<{ purged: { group: string } }>('delete', managed, '--purge', '--yes');
    expect(purged.purged.group).toBe(`hookstream.sub.${managed}`);
    expect((await registryRecords(managed)).at(-1)?.value).toBeNull();
    const gone = await cli(['show', plain]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('UNKNOWN_SUBSCRIBER');
  });

  it('bad command lines exit 2', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['show'])).code).toBe(2);
    expect((await cli(['show', 'Not A Name'])).code).toBe(2);
    expect((await cli(['list', '--reason', 'x'])).code).toBe(2);
  });
});
