import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptLogEntry } from '@hookstream/contracts';
import { createKafka, RecordSender } from '@hookstream/kafka';
import { AttemptIndexer, PortalStore } from '@hookstream/portal-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-portal-index', quiet: true });
const sender = new RecordSender(kafka);
const topic = uniqueName('portal-attempts');
const tenant = uniqueName('portal-tenant');
const dir = mkdtempSync(join(tmpdir(), 'portal-index-'));
const path = join(dir, 'portal.sqlite');
/** Recent: the indexer prunes what is past the attempt log's retention. */
const startMs = Date.now() - 60 * 60_000;

beforeAll(async () => {
  await createTopic(topic, 3);
  await sender.connect();
});
afterAll(async () => {
  await sender.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

function entry(i: number, fields: Partial<AttemptLogEntry> = {}): AttemptLogEntry {
  return {
    eventId: `${tenant}-e${i}`,
    subscriber: 'portal-index',
    step: 'delivered',
    attempt: 1,
    at: new Date(startMs + i * 1000).toISOString(),
    status: 200,
    durationMs: 5,
    tenant,
    type: 'order.created',
    source: { topic: 'events', partition: 0, offset: String(i) },
    ...fields,
  };
}

/** Keyed by event id, as the pusher writes them: an event's steps share a partition. */
async function write(entries: readonly AttemptLogEntry[], to = topic): Promise<void> {
  await sender.send(
    to,
    entries.map((e) => ({ key: e.eventId, value: Buffer.from(JSON.stringify(e)), headers: {} })),
  );
}

/** Runs an indexer over the store until `until` holds of its progress, then stops it. */
async function indexUntil(
  store: PortalStore,
  until: (p: ReturnType<AttemptIndexer['progress']>) => boolean,
): Promise<ReturnType<AttemptIndexer['progress']>> {
  const indexer = new AttemptIndexer(kafka, { store, topic, maxWaitTimeInMs: 100 });
  try {
    await indexer.start();
    return await waitFor('the indexer’s progress', async () => {
      const progress = indexer.progress();
      return until(progress) ? progress : undefined;
    });
  } finally {
    await indexer.stop();
  }
}

describe('AttemptIndexer', () => {
  it('indexes the attempt log, skips what is not an entry, and resumes from its stored positions without duplicates', async () => {
    await write(Array.from({ length: 30 }, (_, i) => entry(i)));
    await sender.send(topic, [{ key: 'junk', value: Buffer.from('{"not":"an entry"}'), headers: {} }]);

    const store = new PortalStore({ path });
    const first = await indexUntil(store, (p) => p.applied === 30 && p.invalid === 1 && p.lag === 0);
    expect(first.duplicates).toBe(0);
    const page = store.listMessages({ tenant, limit: 100 });
    expect(page.messages).toHaveLength(30);
    expect(page.messages[0]?.eventId).toBe(`${tenant}-e29`);
    store.close();

    // While stopped: a retry of one event and ten new ones.
    await write([
      entry(3, {
        step: 'retry-scheduled',
        attempt: 2,
        status: 503,
        at: new Date(startMs + 60_000).toISOString(),
      }),
      ...Array.from({ length: 10 }, (_, i) => entry(30 + i)),
    ]);
    const reopened = new PortalStore({ path });
    // Only the new records are read: nothing is applied twice, and the bad record is not met again.
    const second = await indexUntil(reopened, (p) => p.applied === 11);
    expect(second).toMatchObject({ applied: 11, duplicates: 0, invalid: 0, lag: 0 });
    expect(reopened.listMessages({ tenant, limit: 100 }).messages).toHaveLength(40);
    expect(reopened.getMessage(tenant, `${tenant}-e3`)).toMatchObject({ state: 'pending' });
    expect(reopened.stats().attempts).toBe(41);
    reopened.close();
  });

  it('waits for an attempt log that no pusher has made yet, then indexes it', async () => {
    const later = uniqueName('portal-attempts-later');
    const laterDir = mkdtempSync(join(tmpdir(), 'portal-index-later-'));
    const store = new PortalStore({ path: join(laterDir, 'portal.sqlite') });
    const indexer = new AttemptIndexer(kafka, { store, topic: later, maxWaitTimeInMs: 100 });
    try {
      const started = indexer.start();
      await createTopic(later, 2);
      await write([entry(100)], later);
      await started;
      await waitFor('the entry indexed', async () => (indexer.progress().applied === 1 ? true : undefined));
      expect(store.getMessage(tenant, `${tenant}-e100`)?.state).toBe('delivered');
    } finally {
      await indexer.stop();
      store.close();
      rmSync(laterDir, { recursive: true, force: true });
    }
  });

  it('keeps a batch the store refused and stores it when the store takes it again', async () => {
    const flaky = uniqueName('portal-attempts-flaky');
    await createTopic(flaky, 1);
    await write(
      Array.from({ length: 5 }, (_, i) => entry(200 + i)),
      flaky,
    );
    const flakyDir = mkdtempSync(join(tmpdir(), 'portal-index-flaky-'));
    const store = new RefusingOnce({ path: join(flakyDir, 'portal.sqlite') });
    const errors: string[] = [];
    const indexer = new AttemptIndexer(kafka, {
      store,
      topic: flaky,
      maxWaitTimeInMs: 100,
      log: (level, message) => (level === 'error' ? errors.push(message) : undefined),
    });
    try {
      await indexer.start();
      expect(errors).toHaveLength(1);
      expect(indexer.progress()).toMatchObject({ applied: 5, lag: 0 });
      expect(store.positions(flaky)).toEqual(new Map([[0, '5']]));
    } finally {
      await indexer.stop();
      store.close();
      rmSync(flakyDir, { recursive: true, force: true });
    }
  });
});

/** A store whose first apply fails, as one on a full disk would. */
class RefusingOnce extends PortalStore {
  #refused = false;

  override apply(...args: Parameters<PortalStore['apply']>): ReturnType<PortalStore['apply']> {
    if (!this.#refused) {
      this.#refused = true;
      throw new Error('database or disk is full');
    }
    return super.apply(...args);
  }
}
