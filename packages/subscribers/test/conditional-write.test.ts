import { describe, expect, it } from 'vitest';
import { foldRegistry, type RawRegistryRecord } from '../src/catalog-records.ts';
import { conditionHeaders } from '../src/catalog-revisions.ts';
import { type CatalogWrite, type RevisionLog, writeIfRevision } from '../src/conditional-write.ts';
import { RevisionMismatchError } from '../src/revision-mismatch.ts';
import { record } from './fixtures.ts';

/** An in-memory one-partition log; `racer` lands just before the next write (a concurrent writer). */
class MemoryLog implements RevisionLog {
  readonly records: RawRegistryRecord[] = [];
  racer: CatalogWrite | null = null;

  async readRecords(): Promise<RawRegistryRecord[]> {
    return [...this.records];
  }

  async send(records: readonly CatalogWrite[]): Promise<string> {
    const racer = this.racer;
    this.racer = null;
    for (const r of racer === null ? records : [racer, ...records])
      this.records.push({ ...r, logOffset: String(this.records.length), offset: `0:${this.records.length}` });
    return String(this.records.length - 1);
  }

  latestOf(key: string): RawRegistryRecord | undefined {
    return this.records.findLast((r) => r.key === key);
  }
}

const value = (day: number) =>
  Buffer.from(JSON.stringify(record('a', { updatedAt: `2026-05-0${day}T00:00:00.000Z` })));
const write = (day: number | null): CatalogWrite => ({
  key: 'a',
  value: day === null ? null : value(day),
  headers: {},
});

describe('writeIfRevision', () => {
  it('creates with absent, replaces with the revision it returned', async () => {
    const log = new MemoryLog();
    const created = await writeIfRevision(log, write(1), 'absent');
    expect(created).toEqual({ kind: 'record', revision: '0', at: '0' });
    const replaced = await writeIfRevision(log, write(2), '0');
    expect(replaced).toMatchObject({ revision: '1' });
    expect(foldRegistry(log.records).revisions.get('a')).toBe('1');
  });

  it('refuses a stale revision before writing anything', async () => {
    const log = new MemoryLog();
    await log.send([write(1), write(2)]);
    await expect(writeIfRevision(log, write(3), '0')).rejects.toMatchObject({
      code: 'REVISION_MISMATCH',
      canRetry: false,
      current: '1',
    });
    await expect(writeIfRevision(log, write(3), 'absent')).rejects.toBeInstanceOf(RevisionMismatchError);
    // An offset for a name with no record: refused, though the fold would take it after compaction.
    await expect(writeIfRevision(log, { ...write(3), key: 'b' }, '1')).rejects.toMatchObject({
      current: null,
    });
    expect(log.records).toHaveLength(2);
  });

  it('a loser of a race throws and restates the winner, whose revision stays', async () => {
    const log = new MemoryLog();
    await log.send([write(1)]);
    log.racer = { ...write(2), headers: conditionHeaders('0') };
    await expect(writeIfRevision(log, write(3), '0')).rejects.toMatchObject({
      code: 'REVISION_MISMATCH',
      current: '1',
    });
    // [0] v1, [1] winner v2, [2] loser v3, [3] the loser's repair: v2's bytes again.
    expect(log.records).toHaveLength(4);
    expect(log.latestOf('a')?.value).toEqual(value(2));
    const snap = foldRegistry(log.records);
    expect(snap.revisions.get('a')).toBe('1');
    expect(snap.subscribers.get('a')?.updatedAt).toBe('2026-05-02T00:00:00.000Z');
    // Compaction keeps the repair only: the same record and revision.
    expect(foldRegistry([log.records[3] as RawRegistryRecord]).revisions.get('a')).toBe('1');
  });

  it('a delete that lost to an update restates the update; an update that lost to a delete writes a tombstone', async () => {
    const log = new MemoryLog();
    await log.send([write(1)]);
    log.racer = { ...write(2), headers: conditionHeaders('0') };
    await expect(writeIfRevision(log, write(null), '0')).rejects.toMatchObject({ current: '1' });
    expect(log.latestOf('a')?.value).toEqual(value(2));

    log.racer = { ...write(null), headers: conditionHeaders('1') };
    await expect(writeIfRevision(log, write(3), '1')).rejects.toMatchObject({ current: null });
    expect(log.latestOf('a')?.value).toBeNull();
    expect(foldRegistry(log.records).subscribers.has('a')).toBe(false);
  });

  it('a conditional delete that wins leaves no revision', async () => {
    const log = new MemoryLog();
    await log.send([write(1)]);
    expect(await writeIfRevision(log, write(null), '0')).toEqual({ kind: 'deleted', at: '1' });
    expect(foldRegistry(log.records).revisions.has('a')).toBe(false);
  });

  it('no repair when a later record of the key already took over', async () => {
    const log = new MemoryLog();
    await log.send([write(1)]);
    log.racer = { ...write(2), headers: conditionHeaders('0') };
    // The loser's read-back finds a later unconditional record after its own.
    const send = log.send.bind(log);
    log.send = async (records) => {
      const offset = await send(records);
      if (records[0]?.value !== null && records[0]?.headers['hookstream-restates'] === undefined)
        await send([write(4)]);
      return offset;
    };
    await expect(writeIfRevision(log, write(3), '0')).rejects.toMatchObject({ current: '3' });
    expect(log.records).toHaveLength(4);
  });
});
