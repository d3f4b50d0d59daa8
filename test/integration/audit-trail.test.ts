import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AUDIT_RETENTION_MS,
  AUDIT_TOPIC,
  type AuditRecord,
  dlqTopicName,
  retryTopicName,
} from '@hookstream/contracts';
import { createKafka, RecordSender } from '@hookstream/kafka';
import { AuditTrail, recordDigest, SubscriberCatalog, SubscriberDisabler } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { catalogEnv } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { deadLetterRecord, randomTraceparent } from '../support/dead-letters.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-audit-trail', quiet: true });
// The audit trail is shared by every test on the stack: each test selects its own unique names.
const { env: baseEnv } = catalogEnv(uniqueName('audit-events'));
const user = uniqueName('auditor');
const env = { ...baseEnv, USER: user };

async function cli(args: string[]) {
  const run = await runCli(args, env);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

async function apply(definition: object): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-audit-'));
  await writeFile(join(dir, 'sub.json'), JSON.stringify(definition));
  await cli(['subscribers', 'apply', dir]);
}

async function trail(...args: string[]): Promise<AuditRecord[]> {
  return JSON.parse(await cli(['audit', ...args, '--json'])) as AuditRecord[];
}

describe('the audit trail', () => {
  it('records apply (create, update), pause, resume and delete in order, as the OS user, each after the one before', async () => {
    const name = uniqueName('audit');
    const definition = { name, url: 'https://audit.example.com/hook', secret: { managed: true } };
    await apply(definition);
    await apply({ ...definition, eventTypes: ['order.created'] });
    await cli(['subscribers', 'pause', name, '--reason', 'maintenance']);
    await cli(['subscribers', 'resume', name]);
    const live = (await new SubscriberCatalog(kafka).read()).subscribers.get(name);
    await cli(['subscribers', 'delete', name]);

    const records = await trail('--subscriber', name);
    expect(records.map((r) => r.action)).toEqual([
      'subscriber.created',
      'subscriber.updated',
      'subscriber.paused',
      'subscriber.resumed',
      'subscriber.deleted',
    ]);
    for (const r of records) {
      expect(r.subscriber).toBe(name);
      expect(r.actor).toEqual({ kind: 'user', user });
    }
    // One change's after is the next one's before: nothing changed the record in between.
    expect(records[0]?.before).toBeNull();
    for (let i = 1; i < records.length; i++) expect(records[i]?.before).toBe(records[i - 1]?.after);
    expect(records.at(-1)?.after).toBeNull();
    // The digest is the catalog record's as any reader finds it.
    expect(records[3]?.after).toBe(recordDigest(live));
    expect(records[2]?.detail).toMatchObject({ reason: 'maintenance', by: user });
    // Sealed secrets stay out of the trail: only digests.
    expect(JSON.stringify(records)).not.toContain('ciphertext');
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);

    // The table for people names the same changes.
    const table = await cli(['audit', '--subscriber', name]);
    expect(table).toContain('subscriber.paused');
    expect(table).toContain(`user ${user}`);
    expect(table).toContain('5 change(s)');
  });

  it('--since leaves out what came before; an unknown name has no changes', async () => {
    const name = uniqueName('audit-since');
    await apply({ name, url: 'https://audit.example.com/hook' });
    const cut = new Date(Date.now() + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await cli(['subscribers', 'pause', name]);
    const since = await trail('--subscriber', name, '--since', cut.toISOString());
    expect(since.map((r) => r.action)).toEqual(['subscriber.paused']);
    expect(await trail('--subscriber', uniqueName('audit-none'))).toEqual([]);
    await cli(['subscribers', 'delete', name, '--purge', '--yes']);
    expect((await trail('--subscriber', name)).map((r) => r.action)).toEqual([
      'subscriber.created',
      'subscriber.paused',
      'subscriber.purged',
    ]);
  });

  it("a pusher's auto-disable is recorded with a system actor", async () => {
    const name = uniqueName('audit-off');
    await apply({ name, url: 'https://audit.example.com/hook' });
    const catalog = new SubscriberCatalog(kafka);
    const actor = { kind: 'system', component: 'pusher', instance: 'test:1' } as const;
    // The disabler as a pusher builds it (subscriber-runner.ts), with a notice publisher that drops.
    const disabler = new SubscriberDisabler({
      catalog,
      publisher: async () => ({ publish: async () => undefined }),
      eventsTopic: 'events',
      audit: { trail: new AuditTrail(kafka), actor },
    });
    const result = await disabler.disable({
      name,
      cause: 'gone',
      reason: 'the endpoint answered 410 Gone',
      status: 410,
      failingSinceMs: null,
    });
    expect(result.auditError).toBeNull();
    const records = await trail('--subscriber', name);
    expect(records.map((r) => [r.action, r.actor.kind])).toEqual([
      ['subscriber.created', 'user'],
      ['subscriber.disabled', 'system'],
    ]);
    expect(records[1]).toMatchObject({
      actor,
      before: records[0]?.after,
      detail: { cause: 'gone', status: 410 },
    });
    await cli(['subscribers', 'delete', name]);
  });

  it('a replay that wrote something is recorded with its counts and operator; a dry run is not', async () => {
    const name = uniqueName('audit-rp');
    await createTopic(dlqTopicName(name), 1);
    await createTopic(retryTopicName(name, 1), 1);
    const sender = new RecordSender(kafka);
    await sender.connect();
    try {
      await sender.send(dlqTopicName(name), [
        deadLetterRecord({
          eventId: uniqueName('evt'),
          subscriber: name,
          reason: 'terminal',
          status: 404,
          attempts: 1,
          origin: { topic: 'events', partition: 0, offset: '1' },
          deadLetteredAt: new Date().toISOString(),
          traceparent: randomTraceparent().traceparent,
          key: 'k',
          value: Buffer.from([0, 0, 0, 0, 7, 1]),
        }),
      ]);
    } finally {
      await sender.disconnect();
    }
    await cli(['dlq', 'replay', '--subscriber', name, '--dry-run']);
    expect(await trail('--subscriber', name)).toEqual([]);
    await cli(['dlq', 'replay', '--subscriber', name, '--operator', 'ops-bob']);
    const records = await trail('--subscriber', name);
    expect(records).toEqual([
      expect.objectContaining({
        action: 'dead_letters.replayed',
        actor: { kind: 'user', user },
        before: null,
        after: null,
        detail: expect.objectContaining({ operator: 'ops-bob', selected: 1, replayed: 1, again: false }),
      }),
    ]);
  });

  it('the topic is one partition, deleted by time after a year, never compacted', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(await admin.partitionCount(AUDIT_TOPIC)).toBe(1);
      expect(await admin.topicConfig(AUDIT_TOPIC)).toMatchObject({
        'cleanup.policy': 'delete',
        'retention.ms': String(AUDIT_RETENTION_MS),
      });
    } finally {
      await admin.disconnect();
    }
  });
});
