import { describe, expect, it, vi } from 'vitest';
import type { ConsumedRecord } from '../src/consumed-record.ts';
import { DueGate } from '../src/due-gate.ts';

const record = (dueAt: number | null): ConsumedRecord => ({
  topic: 't',
  partition: 0,
  offset: '0',
  key: null,
  value: null,
  headers: dueAt === null ? {} : { due: String(dueAt) },
  timestampMs: 0,
});
const gate = () => new DueGate((r) => (r.headers.due === undefined ? null : Number(r.headers.due)));

describe('DueGate', () => {
  it('lets records without a due time, or due now or within the hold, start', () => {
    const start = Date.now();
    const g = gate();
    const horizon = g.horizon();
    expect(g.dueLater(record(null), horizon)).toBeNull();
    expect(g.dueLater(record(start - 1000), horizon)).toBeNull();
    // Relative to the batch's start, not to now: a busy machine may be well past it already.
    expect(g.dueLater(record(start + 20), horizon)).toBeNull();
  });

  it('holds back a record due later, reporting its due time', () => {
    const due = Date.now() + 5000;
    const g = gate();
    expect(g.dueLater(record(due), g.horizon())).toBe(due);
    // The horizon is fixed when the batch starts, however long the batch then takes.
    expect(g.dueLater(record(Date.now() + 40), Date.now())).not.toBeNull();
  });

  it('waits in place until the due time, never returning before it', async () => {
    const due = Date.now() + 40;
    expect(await gate().waitUntilDue(record(due), new AbortController().signal)).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(due);
  });

  it('stops waiting when aborted', async () => {
    const controller = new AbortController();
    const waiting = gate().waitUntilDue(record(Date.now() + 60_000), controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });

  it('remembers offsets settled ahead per partition and forgets those below the refetch', () => {
    const g = gate();
    g.settledAhead('t', 0, 0).add(5).add(9);
    g.settledAhead('t', 1, 0).add(3);
    expect([...g.settledAhead('t', 0, 6)]).toEqual([9]);
    expect([...g.settledAhead('t', 1, 0)]).toEqual([3]);
  });

  it('pauses at once and resumes ahead of the due time, not earlier than the lead', async () => {
    const g = gate();
    const due = Date.now() + 400;
    let paused = false;
    const resumedAt = await new Promise<number>((resume) => {
      g.pauseUntil(() => {
        paused = true;
        return () => resume(Date.now());
      }, due);
      expect(paused).toBe(true);
    });
    // Resumed with 150 ms left for the refetch (timers may fire a millisecond early).
    expect(resumedAt).toBeGreaterThanOrEqual(due - 151);
    g.stop();
  });

  it("a due time past a timer's reach (24.8 days) does not wake the partition at once", () => {
    vi.useFakeTimers();
    try {
      const g = gate();
      let resumed = 0;
      g.pauseUntil(() => () => resumed++, Date.now() + 30 * 86_400_000);
      vi.advanceTimersByTime(86_400_000);
      expect(resumed).toBe(0);
      vi.advanceTimersByTime(24 * 86_400_000);
      expect(resumed).toBe(1);
      g.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
