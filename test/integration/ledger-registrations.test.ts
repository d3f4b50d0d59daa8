import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_TOPIC, registrationKey, subscriberGroupId } from '@hookstream/contracts';
import { SampleReceiver } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receiver = new SampleReceiver({ record: true });

describe("the catalog's registrations of subscribers", () => {
  openForSuite(fx, factory, receiver);

  it('a known subscriber whose ledger vanished refuses to start until told where to resume', async () => {
    const topic = await fx.topic(2);
    const name = uniqueName('registered');
    const before = [factory.event(), factory.event()];
    await fx.produce(topic, factory, before);
    const first = await fx.startPusher(topic, { name, url: receiver.url, start: 'earliest' });
    await waitFor('the first two events', async () => (receiver.stats().accepted === 2 ? true : undefined));
    await first.pusher.stop();
    // What offsets.retention.minutes does to a group left empty for a week.
    await fx.admin.deleteGroups([subscriberGroupId(name)]);

    // Its start setting (earliest) would deliver both events again: it refuses instead.
    await expect(fx.startPusher(topic, { name, url: receiver.url, start: 'earliest' })).rejects.toMatchObject(
      {
        code: 'LEDGER_LOST',
        canRetry: false,
      },
    );
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-registry-'));
    const config = join(dir, `${name}.json`);
    await writeFile(
      config,
      JSON.stringify({ name, url: receiver.url, start: 'earliest', allowPrivateNetwork: true }),
    );
    const refused = await runCli(['push', '--config', config, '--topic', topic], process.env, 60_000);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('LEDGER_LOST');
    expect(refused.stderr).toContain('--resume-from');
    const bad = await runCli(['push', '--config', config, '--resume-from', 'yesterday'], process.env);
    expect(bad.code).toBe(2);

    // The operator says where: from the end; only what comes after is delivered.
    await fx.startPusher(topic, { name, url: receiver.url, start: 'earliest' }, undefined, undefined, {
      resumeFrom: 'latest',
    });
    const after = factory.event();
    await fx.produce(topic, factory, [after]);
    await waitFor('the new event', async () => (receiver.hasAccepted(name, after.id) ? true : undefined));
    expect(receiver.stats().duplicates).toBe(0);
    expect(receiver.stats().accepted).toBe(3);
  });

  it('a brand-new subscriber is not held back: it starts from its start setting', async () => {
    const topic = await fx.topic(1);
    const name = uniqueName('fresh');
    const e = factory.event();
    await fx.produce(topic, factory, [e]);
    const { pusher } = await fx.startPusher(topic, { name, url: receiver.url, start: 'earliest' });
    await waitFor('the event', async () => (receiver.hasAccepted(name, e.id) ? true : undefined));
    // Started from earliest (its setting), not refused: the one event, once, and the ledger past
    // it. The receiver accepts before the pusher has read the answer, so the ledger comes first.
    await fx.settledEverything(name, topic);
    expect(pusher.counts.acknowledged).toBe(1);
    expect(receiver.stats().duplicates).toBe(0);
  });

  it('an unreadable registration does not crash the pusher: it refuses, naming the subscriber, until told where', async () => {
    const topic = await fx.topic(1);
    const name = uniqueName('unreadable-reg');
    const e = factory.event();
    await fx.produce(topic, factory, [e]);
    await fx.producer.send({
      topic: CATALOG_TOPIC,
      acks: -1,
      messages: [{ key: registrationKey(name, topic), value: Buffer.from('{"name": not json') }],
    });
    const refusal = fx.startPusher(topic, { name, url: receiver.url, start: 'earliest' });
    await expect(refusal).rejects.toMatchObject({ code: 'REGISTRATION_UNREADABLE', canRetry: false });
    await expect(refusal).rejects.toThrow(new RegExp(`subscriber "${name}".*--resume-from`, 's'));
    expect(receiver.hasAccepted(name, e.id)).toBe(false);
    await fx.startPusher(topic, { name, url: receiver.url, start: 'latest' }, undefined, undefined, {
      resumeFrom: 'earliest',
    });
    await waitFor('the event, from where the operator said', async () =>
      receiver.hasAccepted(name, e.id) ? true : undefined,
    );
  });
});
