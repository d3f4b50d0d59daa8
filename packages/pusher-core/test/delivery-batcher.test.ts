import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeliveryBatcher, type PendingBatch } from '../src/delivery-batcher.ts';

/** A batcher whose sent batches are kept, for the test to take and answer. */
function harness(limits: { maxEvents?: number; maxBytes?: number; maxWaitMs?: number } = {}) {
  const sent: PendingBatch<string, string>[] = [];
  const batcher = new DeliveryBatcher<string, string>(
    { maxEvents: 3, maxBytes: 1024, maxWaitMs: 50, ...limits },
    (batch) => sent.push(batch),
  );
  /** Takes the nth batch sent and answers each member with `answer:<item>`. */
  const answer = (n: number) => {
    const members = sent[n]?.take() ?? [];
    for (const m of members) m.resolve(`answer:${m.item}`);
    return members.map((m) => m.item);
  };
  return { batcher, sent, answer };
}

const live = () => new AbortController().signal;

describe('DeliveryBatcher', () => {
  afterEach(() => vi.useRealTimers());

  it('sends a batch when it holds maxEvents, and never mixes two groups', async () => {
    const h = harness();
    const results = [
      h.batcher.add('acme', 'a1', 10, live()),
      h.batcher.add('globex', 'g1', 10, live()),
      h.batcher.add('acme', 'a2', 10, live()),
      h.batcher.add('acme', 'a3', 10, live()),
    ];
    expect(h.sent).toHaveLength(1);
    expect(h.answer(0)).toEqual(['a1', 'a2', 'a3']);
    expect(h.batcher.openBatches).toBe(1);
    expect(await Promise.all([results[0], results[2], results[3]])).toEqual([
      'answer:a1',
      'answer:a2',
      'answer:a3',
    ]);
  });

  it('sends what it has maxWaitMs after the first event joined', async () => {
    vi.useFakeTimers();
    const h = harness({ maxWaitMs: 200 });
    const result = h.batcher.add('acme', 'a1', 10, live());
    vi.advanceTimersByTime(150);
    void h.batcher.add('acme', 'a2', 10, live());
    expect(h.sent).toHaveLength(0);
    vi.advanceTimersByTime(50);
    expect(h.sent).toHaveLength(1);
    expect(h.answer(0)).toEqual(['a1', 'a2']);
    expect(await result).toBe('answer:a1');
  });

  it('sends the batch before an event that would take its body past maxBytes; a larger event goes alone', () => {
    // The envelope {"events":[]} is 13 bytes, a comma between two members 1.
    const h = harness({ maxEvents: 100, maxBytes: 13 + 40 + 1 + 40 });
    void h.batcher.add('acme', 'a1', 40, live());
    void h.batcher.add('acme', 'a2', 40, live());
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0]?.bytes).toBe(13 + 40 + 1 + 40);
    void h.batcher.add('acme', 'a3', 40, live());
    void h.batcher.add('acme', 'a4', 41, live());
    expect(h.sent).toHaveLength(2);
    expect(h.answer(1)).toEqual(['a3']);
    void h.batcher.add('acme', 'big', 5000, live());
    expect(h.sent).toHaveLength(4);
    expect(h.answer(2)).toEqual(['a4']);
    expect(h.answer(3)).toEqual(['big']);
  });

  it('an event stopped before its request went out leaves the batch; the last one to leave cancels it', async () => {
    const h = harness({ maxEvents: 2 });
    const stop1 = new AbortController();
    const stop2 = new AbortController();
    const first = h.batcher.add('acme', 'a1', 10, stop1.signal);
    stop1.abort();
    expect(await first).toBeNull();
    // The open batch emptied: a new one starts with the next event.
    expect(h.batcher.openBatches).toBe(0);
    const second = h.batcher.add('acme', 'a2', 10, stop2.signal);
    const third = h.batcher.add('acme', 'a3', 10, live());
    expect(h.sent).toHaveLength(1);
    const batch = h.sent[0];
    stop2.abort();
    expect(await second).toBeNull();
    expect(batch?.bytes).toBe(13 + 10);
    expect(batch?.signal.aborted).toBe(false);
    // Taken: the request is out, the members ride it whatever their signals say.
    const members = batch?.take() ?? [];
    expect(members.map((m) => m.item)).toEqual(['a3']);
    for (const m of members) m.resolve('ok');
    expect(await third).toBe('ok');
  });

  it('a batch whose every member left aborts its signal, so its request never goes out', () => {
    const h = harness({ maxEvents: 1 });
    const stop = new AbortController();
    void h.batcher.add('acme', 'a1', 10, stop.signal);
    expect(h.sent).toHaveLength(1);
    stop.abort();
    expect(h.sent[0]?.signal.aborted).toBe(true);
    expect(h.sent[0]?.size).toBe(0);
  });

  it('an event already stopped never joins', async () => {
    const h = harness();
    const stop = new AbortController();
    stop.abort();
    expect(await h.batcher.add('acme', 'a1', 10, stop.signal)).toBeNull();
    expect(h.batcher.openBatches).toBe(0);
  });
});
