import { CATALOG_TOPIC, SubscriberDefinition, type SubscriberRecord } from '@hookstream/contracts';
import { type ConsumedRecord, createKafka, readTopic } from '@hookstream/kafka';
import {
  CATALOG_MIN_COMPACTION_LAG_MS,
  CATALOG_SEGMENT_MS,
  type CatalogSnapshot,
  CatalogWatcher,
  IF_REVISION_HEADER,
  RESTATES_HEADER,
  RevisionMismatchError,
  recordOfDefinition,
  SubscriberCatalog,
} from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// Catalog revisions (issue 27 item 4) against the real catalog topic, which every test shares:
// each subscriber name here is unique, and tombstoned at the end. A revision is the offset of
// the write in effect; conditional writes are folded by every reader, and a loser repairs.

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'catalog-revision-tests', quiet: true });
const catalog = new SubscriberCatalog(kafka);
const names: string[] = [];

function named(prefix: string): string {
  const name = uniqueName(prefix);
  names.push(name);
  return name;
}

/** A record of `name` whose URL path says which writer wrote it. */
function version(name: string, marker: string): SubscriberRecord {
  const definition = SubscriberDefinition.parse({ name, url: `https://${name}.example.com/${marker}` });
  return recordOfDefinition(definition, new Date());
}

const markerOf = (record: SubscriberRecord | undefined) => record?.definition.url?.split('/').at(-1);

/** Every record the catalog topic holds for this key, oldest first (headers included). */
async function rawRecords(name: string): Promise<ConsumedRecord[]> {
  return readTopic(kafka, {
    topic: CATALOG_TOPIC,
    purpose: 'catalog-revision-test',
    keep: (r) => r.key === name,
  });
}

/** The marker of the latest record of the key: what compaction would keep (null: a tombstone). */
async function latestMarker(name: string): Promise<string | null | undefined> {
  const latest = (await rawRecords(name)).at(-1);
  if (latest === undefined) return undefined;
  if (latest.value === null) return null;
  return markerOf(JSON.parse(latest.value.toString('utf8')) as SubscriberRecord);
}

beforeAll(async () => {
  await catalog.ensureTopic();
});

afterAll(async () => {
  await catalog.tombstone(names);
});

describe('catalog revisions', () => {
  it('the catalog topic keeps a record an hour before compaction may drop it, and rolls hourly so compaction can', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const config = await admin.topicConfig(CATALOG_TOPIC);
      expect(Number(config?.['min.compaction.lag.ms'])).toBeGreaterThanOrEqual(CATALOG_MIN_COMPACTION_LAG_MS);
      expect(Number(config?.['segment.ms'])).toBeLessThanOrEqual(CATALOG_SEGMENT_MS);
    } finally {
      await admin.disconnect();
    }
  });

  it('a write sets a revision; a conditional write with it succeeds; a stale one changes nothing', async () => {
    const name = named('rev-cas');
    await catalog.write([version(name, 'v1')]);
    const first = (await catalog.read()).revisions.get(name);
    expect(first).toMatch(/^\d+$/);

    const second = await catalog.writeIfRevision(version(name, 'v2'), first as string);
    expect(BigInt(second)).toBeGreaterThan(BigInt(first as string));
    const after = await catalog.read();
    expect(after.revisions.get(name)).toBe(second);
    expect(markerOf(after.subscribers.get(name))).toBe('v2');

    const stale = catalog.writeIfRevision(version(name, 'v3'), first as string);
    await expect(stale).rejects.toBeInstanceOf(RevisionMismatchError);
    await expect(stale).rejects.toMatchObject({
      code: 'REVISION_MISMATCH',
      canRetry: false,
      current: second,
    });
    const unchanged = await catalog.read();
    expect(unchanged.revisions.get(name)).toBe(second);
    expect(markerOf(unchanged.subscribers.get(name))).toBe('v2');
    expect(await latestMarker(name)).toBe('v2');

    // Create-only: refused while a record is in effect.
    await expect(catalog.writeIfRevision(version(name, 'v4'), 'absent')).rejects.toMatchObject({
      code: 'REVISION_MISMATCH',
    });
  }, 60_000);

  it('a conditional delete: refused when stale, deletes when current; then absent creates again', async () => {
    const name = named('rev-del');
    const created = await catalog.writeIfRevision(version(name, 'v1'), 'absent');
    const replaced = await catalog.writeIfRevision(version(name, 'v2'), created);
    await expect(catalog.removeIfRevision(name, created)).rejects.toMatchObject({ current: replaced });
    expect((await catalog.read()).subscribers.has(name)).toBe(true);

    await catalog.removeIfRevision(name, replaced);
    const deleted = await catalog.read();
    expect(deleted.subscribers.has(name)).toBe(false);
    expect(deleted.revisions.has(name)).toBe(false);
    await expect(catalog.writeIfRevision(version(name, 'v3'), replaced)).rejects.toMatchObject({
      current: null,
    });

    const again = await catalog.writeIfRevision(version(name, 'v4'), 'absent');
    expect((await catalog.read()).revisions.get(name)).toBe(again);
  }, 60_000);

  it('two concurrent writers with the same revision: exactly one wins, the loser repairs, a watcher sees the winner only', async () => {
    const name = named('rev-race');
    await catalog.write([version(name, 'base')]);
    const seen: CatalogSnapshot[] = [];
    const watcher = new CatalogWatcher(kafka, {
      onSnapshot: async (s) => {
        seen.push(s);
      },
      log: () => undefined,
    });
    await watcher.start();
    try {
      // Both writers read before either writes, as two API requests with the same If-Match do;
      // when one's read already sees the other's write, it is refused before writing. Race again
      // (bounded) until both records landed, so the loser's repair is what is checked.
      let raced = false;
      for (let round = 0; round < 5 && !raced; round++) {
        const expected = (await catalog.read()).revisions.get(name) as string;
        const writers = [`a${round}`, `b${round}`];
        const outcomes = await Promise.allSettled(
          writers.map((w) => new SubscriberCatalog(kafka).writeIfRevision(version(name, w), expected)),
        );
        const won = outcomes.flatMap((o, i) =>
          o.status === 'fulfilled' ? [{ writer: writers[i], revision: o.value }] : [],
        );
        const lost = outcomes.flatMap((o, i) =>
          o.status === 'rejected' ? [{ writer: writers[i], error: o.reason }] : [],
        );
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        const winner = won[0] as { writer: string; revision: string };
        const loser = lost[0] as { writer: string; error: unknown };
        expect(loser.error).toBeInstanceOf(RevisionMismatchError);
        expect(loser.error).toMatchObject({ code: 'REVISION_MISMATCH', current: winner.revision });

        const snapshot = await catalog.read();
        expect(snapshot.revisions.get(name)).toBe(winner.revision);
        expect(markerOf(snapshot.subscribers.get(name))).toBe(winner.writer);
        // What compaction keeps is the winner's content, never the loser's.
        expect(await latestMarker(name)).toBe(winner.writer);

        const raw = await rawRecords(name);
        const loserRecord = raw.find((r) => r.value?.toString('utf8').includes(`/${loser.writer}"`));
        if (loserRecord !== undefined) {
          raced = true;
          expect(loserRecord.headers[IF_REVISION_HEADER]).toBe(expected);
          const repair = raw.at(-1) as ConsumedRecord;
          expect(BigInt(repair.offset)).toBeGreaterThan(BigInt(loserRecord.offset));
          expect(repair.headers).toMatchObject({
            [IF_REVISION_HEADER]: winner.revision,
            [RESTATES_HEADER]: 'true',
          });
        }

        await waitFor('the watcher to fold the race', async () =>
          watcher.snapshot?.revisions.get(name) === winner.revision &&
          markerOf(watcher.snapshot.subscribers.get(name)) === winner.writer &&
          (!raced || watcher.snapshot.lost.some((l) => l.key === name))
            ? true
            : undefined,
        );
        // Pushers never took the loser's record, not even for a moment.
        expect(seen.map((s) => markerOf(s.subscribers.get(name)))).not.toContain(loser.writer);
      }
      expect(raced, 'in 5 rounds, both writers never wrote before reading the other').toBe(true);
    } finally {
      await watcher.stop();
    }
  }, 120_000);

  it('through watchers (as API replicas keep them): the same answers, and one winner of a race', async () => {
    const name = named('rev-watch');
    const watchers = [0, 1].map(
      () => new CatalogWatcher(kafka, { onSnapshot: async () => undefined, log: () => undefined }),
    );
    await Promise.all(watchers.map((w) => w.start()));
    try {
      const [one, two] = watchers as [CatalogWatcher, CatalogWatcher];
      const started = Date.now();
      const created = await catalog.writeIfRevision(version(name, 'v1'), 'absent', { watcher: one });
      const tookMs = Date.now() - started;
      expect((await catalog.read()).revisions.get(name)).toBe(created);
      await expect(
        catalog.writeIfRevision(version(name, 'v2'), 'absent', { watcher: one }),
      ).rejects.toMatchObject({ code: 'REVISION_MISMATCH', current: created });

      const outcomes = await Promise.allSettled([
        new SubscriberCatalog(kafka).writeIfRevision(version(name, 'x'), created, { watcher: one }),
        new SubscriberCatalog(kafka).writeIfRevision(version(name, 'y'), created, { watcher: two }),
      ]);
      const won = outcomes.flatMap((o, i) =>
        o.status === 'fulfilled' ? [{ writer: ['x', 'y'][i], revision: o.value }] : [],
      );
      const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      const winner = won[0] as { writer: string; revision: string };
      expect(lost[0]).toMatchObject({ code: 'REVISION_MISMATCH', current: winner.revision });
      const snapshot = await catalog.read();
      expect(snapshot.revisions.get(name)).toBe(winner.revision);
      expect(markerOf(snapshot.subscribers.get(name))).toBe(winner.writer);
      expect(await latestMarker(name)).toBe(winner.writer);

      await catalog.removeIfRevision(name, winner.revision, null, { watcher: two });
      expect((await catalog.read()).subscribers.has(name)).toBe(false);
      // A full read costs about 0.7 s on the local stack; a watcher's records cost nothing.
      expect(tookMs).toBeLessThan(5_000);
    } finally {
      await Promise.all(watchers.map((w) => w.stop()));
    }
  }, 120_000);
});
