import { describe, expect, it, vi } from 'vitest';
import { EndOffsetWatch } from '../../src/consume/end-offset-watch.ts';

/** A broker's end offsets as a test moves them; counts the looks and fails the next one on request. */
function fakeEnds() {
  const ends = new Map<string, Map<number, number>>();
  const state = { looks: 0, failNext: false, asked: [] as string[][] };
  return {
    state,
    set: (topic: string, partition: number, end: number) =>
      ends.set(topic, new Map([...(ends.get(topic) ?? []), [partition, end]])),
    ends: async (topics: readonly string[]) => {
      state.looks++;
      state.asked.push([...topics]);
      if (state.failNext) {
        state.failNext = false;
        throw new Error('Kafka away');
      }
      return new Map(topics.flatMap((t) => (ends.has(t) ? [[t, new Map(ends.get(t))] as const] : [])));
    },
  };
}

describe('EndOffsetWatch', () => {
  it('wakes a waiter once its partition has a record past the offset, asks for every waiting topic in one look, and stops looking when none waits', async () => {
    const broker = fakeEnds();
    broker.set('t1', 0, 5);
    broker.set('t2', 1, 0);
    const logged: string[] = [];
    const watch = new EndOffsetWatch({ ends: broker.ends, everyMs: 5, log: (_l, m) => logged.push(m) });
    const woken: string[] = [];
    watch.whenPast('t1', 0, 5, () => woken.push('t1:0'));
    watch.whenPast('t2', 1, 0, () => woken.push('t2:1'));
    await vi.waitFor(() => expect(broker.state.looks).toBeGreaterThanOrEqual(2));
    expect(woken).toEqual([]);
    expect(broker.state.asked[0]).toEqual(['t1', 't2']);

    broker.set('t2', 1, 1);
    await vi.waitFor(() => expect(woken).toEqual(['t2:1']));
    expect(watch.waiting).toBe(1);
    // A failed look is only a missed one.
    broker.state.failNext = true;
    const looks = broker.state.looks;
    await vi.waitFor(() => expect(broker.state.looks).toBeGreaterThan(looks + 1));
    expect(logged).toContain('could not read the end offsets of the waiting partitions');
    broker.set('t1', 0, 7);
    await vi.waitFor(() => expect(woken).toEqual(['t2:1', 't1:0']));
    expect(watch.waiting).toBe(0);
    const idle = broker.state.looks;
    await new Promise((r) => setTimeout(r, 30));
    expect(broker.state.looks).toBe(idle);
  });

  it('a cancelled waiter is never woken', async () => {
    const broker = fakeEnds();
    broker.set('t1', 0, 0);
    const watch = new EndOffsetWatch({ ends: broker.ends, everyMs: 5, log: () => undefined });
    const woken: string[] = [];
    const cancel = watch.whenPast('t1', 0, 0, () => woken.push('cancelled'));
    watch.whenPast('t1', 0, 0, () => woken.push('kept'));
    cancel();
    broker.set('t1', 0, 3);
    await vi.waitFor(() => expect(woken).toEqual(['kept']));
    watch.stop();
  });
});
