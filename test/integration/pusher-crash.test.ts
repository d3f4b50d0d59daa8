import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SampleReceiver } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receiver = new SampleReceiver();
const EVENTS = 10_000;

describe('kill -9 of a pusher mid-run', () => {
  openForSuite(fx, factory, receiver);

  it(`loses nothing: after a restart every one of ${EVENTS} events has arrived, deduplicated count exact`, async () => {
    const topic = await fx.topic(3);
    const events = Array.from({ length: EVENTS }, () => factory.event());
    await fx.produce(topic, factory, events);
    const name = uniqueName('crash');
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-crash-'));
    const config = join(dir, `${name}.json`);
    await writeFile(
      config,
      JSON.stringify({
        name,
        url: `${receiver.url}/hooks`,
        rate: { perSecond: 100_000 },
        concurrency: 32,
        start: 'earliest',
        allowPrivateNetwork: true,
      }),
    );
    // The broker's shortest session: the restart waits for the killed member's to time out.
    const args = ['push', '--config', config, '--topic', topic, '--session-timeout', '6000'];

    const first = spawnCli(args);
    await waitFor(
      'a good part of the run to arrive',
      async () => (receiver.stats().accepted >= 2000 ? true : undefined),
      {
        timeoutMs: 90_000,
        intervalMs: 10,
      },
    );
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');
    const atKill = receiver.stats().accepted;
    const ledgerAtKill = await fx.ledger(name, topic);
    // The kill landed mid-run: part delivered, part not.
    expect(atKill).toBeLessThan(EVENTS);
    expect(ledgerAtKill).toBeLessThanOrEqual(atKill);

    const second = spawnCli(args);
    await waitFor('every event', async () => (receiver.stats().accepted === EVENTS ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    const end = await fx.end(topic);
    await waitFor('the ledger at the end', async () =>
      (await fx.ledger(name, topic)) === end ? true : undefined,
    );
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);

    const stats = receiver.stats();
    for (const e of events) expect(receiver.hasAccepted(name, e.id)).toBe(true);
    expect(stats.accepted).toBe(EVENTS);
    expect(stats.received).toBe(EVENTS + stats.duplicates);
    process.stdout.write(
      `crash test: ${atKill} accepted at the kill (ledger ${ledgerAtKill}); ${stats.duplicates} redelivered after restart\n`,
    );
  }, 300_000);
});
