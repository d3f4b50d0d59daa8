import { SubscriberDefinition, type SubscriberRecord } from '@hookstream/contracts';
import { createKafka } from '@hookstream/kafka';
import {
  LiveCatalog,
  RevisionMismatchError,
  recordOfDefinition,
  SubscriberCatalog,
} from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';

// The catalog as the management API keeps it: followed, so a read costs an end-offset request.
// The shared catalog topic is every test's; each name here is unique and tombstoned at the end.

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'live-catalog-tests', quiet: true });
/** Another process's catalog: its writes the live one never made itself. */
const elsewhere = new SubscriberCatalog(
  createKafka({ brokers: endpoints.brokers, clientId: 'live-catalog-other', quiet: true }),
);
const live = new LiveCatalog(kafka, () => undefined);
const names: string[] = [];

function record(marker: string, name = uniqueName('live')): SubscriberRecord {
  if (!names.includes(name)) names.push(name);
  const definition = SubscriberDefinition.parse({ name, url: `https://${name}.example.com/${marker}` });
  return recordOfDefinition(definition, new Date());
}

const markerOf = (r: SubscriberRecord | undefined) => r?.definition.url?.split('/').at(-1);

beforeAll(async () => {
  await live.start();
});

afterAll(async () => {
  await elsewhere.tombstone(names);
  await live.stop();
});

describe('LiveCatalog', () => {
  it('a read sees every write acknowledged before it began, from any process, and agrees with a full read', async () => {
    for (let i = 0; i < 5; i++) {
      const written = record(`v${i}`);
      await elsewhere.write([written]);
      // No wait in between: the read itself must catch up to the catalog's end.
      const snapshot = await live.read();
      expect(markerOf(snapshot.subscribers.get(written.definition.name))).toBe(`v${i}`);
    }
    const [mine, full] = [await live.read(), await elsewhere.read()];
    for (const name of names) expect(mine.revisions.get(name)).toBe(full.revisions.get(name));
  });

  it('writes conditionally through its watcher: the current revision wins once, a stale one is refused', async () => {
    const first = record('a');
    const name = first.definition.name;
    const created = await live.writeIfRevision(first, 'absent');
    expect((await live.read()).revisions.get(name)).toBe(created);
    const replaced = await live.writeIfRevision(record('b', name), created);
    const stale = live.writeIfRevision(record('c', name), created);
    await expect(stale).rejects.toBeInstanceOf(RevisionMismatchError);
    const after = await live.read();
    expect(after.revisions.get(name)).toBe(replaced);
    expect(markerOf(after.subscribers.get(name))).toBe('b');
  });
});
