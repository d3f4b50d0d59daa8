import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '@hookstream/api-client';
import { dlqTopicName, retryTopicName } from '@hookstream/contracts';
import { createKafka, RecordSender } from '@hookstream/kafka';
import { SubscriberCatalog } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { runCli } from '../support/cli.ts';
import { deadLetterRecord, randomTraceparent } from '../support/dead-letters.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Issue 27: "the CLI with --api works with no Kafka settings". `hookstream api` runs as a child
// process on the real stack; the CLI runs with --api, a token, and an environment whose only
// Kafka and registry settings point at a closed port: any Kafka use would fail (the CLI refuses
// to open one in this mode, so it would fail at once, naming it).

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-cli-remote-api', quiet: true });
const catalog = new SubscriberCatalog(kafka);
const token = () => randomBytes(18).toString('base64url');
const operatorToken = token();
const acme = uniqueName('acme');
const acmeToken = token();
const mine = uniqueName('remote-acme');
const operators = uniqueName('remote-op');
const deadEvent = uniqueName('evt-remote');
let api: ReturnType<typeof spawnCli> | undefined;
/** The same environment without --api, started first: it waits on the closed port meanwhile. */
let local: ReturnType<typeof runCli> | undefined;
let base = '';
let dir = '';

/** The CLI's environment: no variable of the stack's, and Kafka and the registry unreachable. */
function remoteEnv(apiToken: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(KAFKA_|REGISTRY_|HOOKSTREAM_|OTEL_|JAEGER_)/.test(k)) env[k] = v;
  return {
    ...env,
    KAFKA_BROKERS: '127.0.0.1:1',
    REGISTRY_URL: 'http://127.0.0.1:1',
    ...(apiToken === undefined ? {} : { HOOKSTREAM_API_TOKEN: apiToken }),
  };
}

function remote(as: string | undefined, args: string[]) {
  return runCli([...args, '--api', base], remoteEnv(as), 20_000);
}

async function json<T>(as: string, args: string[]): Promise<T> {
  const run = await remote(as, [...args, '--json']);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as T;
}

async function definitionFile(name: string, definition: Record<string, unknown>): Promise<string> {
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify({ name, ...definition }));
  return path;
}

beforeAll(async () => {
  local = runCli(['subscribers', 'list', '--json'], remoteEnv(undefined), 30_000);
  dir = await mkdtemp(join(tmpdir(), 'hookstream-remote-'));
  api = spawnCli(['api', '--port', '0'], {
    ...process.env,
    KAFKA_BROKERS: endpoints.brokers.join(','),
    HOOKSTREAM_API_TOKENS: `${operatorToken}=*,${acmeToken}@${acme}`,
    HOOKSTREAM_API_RATE: '1000',
    HOOKSTREAM_API_LOG_LEVEL: 'warn',
    HOOKSTREAM_SECRETS_KEY: randomBytes(32).toString('base64'),
  });
  const child = api;
  base = await waitFor('hookstream api to listen', async () => {
    if (child.exitCode !== null) throw new Error(`hookstream api exited: ${child.output()}`);
    return /hookstream api on (http:\/\/\S+) /.exec(child.output())?.[1];
  });
}, 60_000);

afterAll(async () => {
  if (base !== '') {
    const client = new ApiClient({ baseUrl: base, token: operatorToken });
    for (const name of [mine, operators])
      await client.deleteSubscriber(name, { purge: name === mine }).catch(() => undefined);
  }
  if (api !== undefined) {
    api.kill('SIGTERM');
    await exited(api);
  }
}, 60_000);

interface Item {
  name: string;
  tenant: string | null;
  state: { kind: string };
}

describe('hookstream subscribers and dlq with --api, no Kafka settings', () => {
  it('applies, lists, shows, pauses and resumes over the API; a tenant sees only its own', async () => {
    const acmeFile = await definitionFile(mine, {
      url: 'https://remote.example.com/hook',
      eventTypes: ['order.created'],
      secret: { managed: true },
    });
    const opFile = await definitionFile(operators, { url: 'https://operator.example.com/hook' });
    // apply (a PUT): created, then unchanged; the tenant's record is the tenant's.
    const [created, operatorCreated] = await Promise.all([
      json<{ action: string; subscriber: { definition: { tenant?: string } } }>(acmeToken, [
        'subscribers',
        'apply',
        acmeFile,
      ]),
      json<{ action: string }>(operatorToken, ['subscribers', 'apply', opFile]),
    ]);
    expect([created.action, created.subscriber.definition.tenant, operatorCreated.action]).toEqual([
      'created',
      acme,
      'created',
    ]);
    const again = await remote(acmeToken, ['subscribers', 'apply', acmeFile]);
    expect([again.code, again.stdout]).toEqual([
      0,
      expect.stringMatching(new RegExp(`^unchanged  ${mine} `)),
    ]);

    // list: the tenant's token lists its own only (the table for people too); the operator's
    // token reads the tenant's as well (its list would measure every subscriber of the stack).
    const [acmeList, table, operatorShows] = await Promise.all([
      json<{ subscribers: Item[] }>(acmeToken, ['subscribers', 'list']),
      remote(acmeToken, ['subscribers', 'list']),
      json<{ definition: { tenant: string } }>(operatorToken, ['subscribers', 'show', mine]),
    ]);
    expect(acmeList.subscribers.map((s) => s.name)).toEqual([mine]);
    expect(operatorShows.definition.tenant).toBe(acme);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^${mine} +active +${acme} `, 'm'));
    expect(table.stdout).not.toContain(operators);

    // show: its own; another's is not found, as if it did not exist. The tenant's pause of the
    // operator's runs alongside: not found either, and that one stays as it was.
    const [shown, text, notMine, pauseOther, paused] = await Promise.all([
      json<{ etag: string; definition: { name: string; tenant: string } }>(acmeToken, [
        'subscribers',
        'show',
        mine,
      ]),
      remote(acmeToken, ['subscribers', 'show', mine]),
      remote(acmeToken, ['subscribers', 'show', operators]),
      remote(acmeToken, ['subscribers', 'pause', operators]),
      // pause lands in the catalog, the token recorded as who paused.
      json<{ changed: boolean; state: { kind: string; by: string; reason: string } }>(acmeToken, [
        'subscribers',
        'pause',
        mine,
        '--reason',
        'remote test',
      ]),
    ]);
    expect([shown.definition.name, shown.definition.tenant, shown.etag]).toEqual([
      mine,
      acme,
      expect.stringMatching(/^"\d+"$/),
    ]);
    expect(text.stdout).toContain(`subscriber ${mine}: `);
    expect(text.stdout).toContain(`etag: "`);
    for (const other of [notMine, pauseOther])
      expect([other.code, other.stderr]).toEqual([1, expect.stringContaining('not_found')]);
    expect([paused.changed, paused.state.kind, paused.state.reason]).toEqual([true, 'paused', 'remote test']);
    expect(paused.state.by).toMatch(/^tok_/);
    const afterPause = await catalog.read();
    expect(afterPause.subscribers.get(mine)?.state.kind).toBe('paused');
    expect(afterPause.subscribers.get(operators)?.state.kind).toBe('active');

    const resumed = await remote(acmeToken, ['subscribers', 'resume', mine]);
    expect([resumed.code, resumed.stdout]).toEqual([0, `${mine}: active\n`]);
  });

  it('lists and dry-runs a replay of dead letters over the API', async () => {
    // One dead letter, as the pusher writes it, in the subscriber's DLQ (its tier 1 for the replay).
    await createTopic(dlqTopicName(mine), 1);
    await createTopic(retryTopicName(mine, 1), 1);
    const sender = new RecordSender(kafka);
    await sender.connect();
    try {
      await sender.send(dlqTopicName(mine), [
        deadLetterRecord({
          eventId: deadEvent,
          subscriber: mine,
          reason: 'exhausted',
          status: 503,
          attempts: 6,
          origin: { topic: 'events', partition: 0, offset: '0' },
          deadLetteredAt: new Date().toISOString(),
          traceparent: randomTraceparent().traceparent,
          key: deadEvent,
          value: Buffer.from([0, 0, 0, 0, 7, 1]),
        }),
      ]);
    } finally {
      await sender.disconnect();
    }
    const [list, table, dry, other, rotated] = await Promise.all([
      json<{ subscriber: string; count: number; deadLetters: { eventId: string }[] }>(acmeToken, [
        'dlq',
        'list',
        '--subscriber',
        mine,
        '--reason',
        'exhausted',
        '--status',
        '5xx',
      ]),
      remote(acmeToken, ['dlq', 'list', '--subscriber', mine]),
      remote(acmeToken, ['dlq', 'replay', '--subscriber', mine, '--dry-run']),
      remote(acmeToken, ['dlq', 'list', '--subscriber', operators]),
      // The managed secret, rotated over the API: the answer holds the new one in clear.
      json<{ rotated: boolean; current: string; previous: unknown[] }>(acmeToken, [
        'subscribers',
        'secret',
        'rotate',
        mine,
        '--grace',
        '0',
      ]),
    ]);
    expect([rotated.rotated, rotated.current.length > 20, rotated.previous]).toEqual([true, true, []]);
    // Read back over the API: the secret the rotation made; another tenant's is not found.
    const shown = await json<{ rotated: boolean; current: string }>(acmeToken, [
      'subscribers',
      'secret',
      'show',
      mine,
    ]);
    expect([shown.rotated, shown.current]).toEqual([false, rotated.current]);
    const foreign = await remote(acmeToken, ['subscribers', 'secret', 'show', operators]);
    expect([foreign.code, foreign.stderr.includes('not_found')]).toEqual([1, true]);
    expect([list.subscriber, list.count, list.deadLetters.map((l) => l.eventId)]).toEqual([
      mine,
      1,
      [deadEvent],
    ]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`^${deadEvent} +shipment.updated +exhausted +6 +503 +\\S+ +0:0 *$`, 'm'),
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(deadEvent);
    expect(dry.stdout).toMatch(/^would replay 1 to .*\(dry run: nothing written\)$/m);
    expect([other.code, other.stderr]).toEqual([1, expect.stringContaining('not_found')]);
  });

  it('deletes over the API; refuses what needs Kafka and a missing token, before anything', async () => {
    const deleted = await json<{ deleted: boolean }>(acmeToken, ['subscribers', 'delete', mine]);
    expect(deleted.deleted).toBe(true);
    const after = await catalog.read();
    expect([after.subscribers.has(mine), after.subscribers.get(operators)?.state.kind]).toEqual([
      false,
      'active',
    ]);
    const badFile = await definitionFile(uniqueName('remote-bad'), { url: 'ftp://nowhere' });
    const [noToken, needsKafka, bad] = await Promise.all([
      remote(undefined, ['subscribers', 'list']),
      remote(operatorToken, ['subscribers', 'header', 'set', operators, 'x-key']),
      remote(operatorToken, ['subscribers', 'apply', badFile]),
    ]);
    expect([noToken.code, noToken.stderr]).toEqual([1, expect.stringContaining('HOOKSTREAM_API_TOKEN')]);
    // A definition the API's schema refuses is refused before sending, naming the field.
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringMatching(/invalid_definition: .*url: /)]);
    expect([needsKafka.code, needsKafka.stderr]).toEqual([
      2,
      expect.stringContaining('does not work over --api'),
    ]);
    // Without --api the same environment uses Kafka, and its settings point nowhere: it fails.
    const onKafka = await local;
    expect([onKafka?.code, onKafka?.stdout]).toEqual([1, '']);
    expect(onKafka?.stderr).toContain('127.0.0.1:1');
  });
});
