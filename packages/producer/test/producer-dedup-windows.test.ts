import { describe, expect, it } from 'vitest';
import { ProducerDedupWindows } from '../src/index.ts';

const done = (value: string) => Promise.resolve(value);

describe('ProducerDedupWindows', () => {
  it('gives each producer an equal share of the ids', () => {
    expect(new ProducerDedupWindows({ windowMs: 60_000, maxEntries: 100_000, producers: 3 }).share).toBe(
      33_333,
    );
    expect(new ProducerDedupWindows({ windowMs: 60_000, maxEntries: 2, producers: 5 }).share).toBe(1);
  });

  it('a noisy producer evicts only its own ids, never another producer’s claim', async () => {
    const windows = new ProducerDedupWindows<string>({ windowMs: 60_000, maxEntries: 20, producers: 2 });
    windows.claim('quiet', 'order-1', done('first write'), 'fp');
    windows.settle('quiet', 'order-1', 'first write');
    for (let i = 0; i < 1000; i++) windows.claim('noisy', `n-${i}`, done('n'), 'fp');
    expect(await windows.find('quiet', 'order-1')?.result).toBe('first write');
    // The noisy one keeps its newest ten (its share), its older ones are forgotten.
    expect(windows.find('noisy', 'n-999')).toBeDefined();
    expect(windows.find('noisy', 'n-990')).toBeDefined();
    expect(windows.find('noisy', 'n-989')).toBeUndefined();
  });

  it('dedupes an id within its producer only', () => {
    const windows = new ProducerDedupWindows<string>({ windowMs: 60_000, maxEntries: 10, producers: 2 });
    windows.claim('a', 'same-id', done('a'), 'fp');
    expect(windows.find('a', 'same-id')).toBeDefined();
    expect(windows.find('b', 'same-id')).toBeUndefined();
    windows.forget('a', 'same-id');
    expect(windows.find('a', 'same-id')).toBeUndefined();
  });

  it('keeps at most `producers` windows: an undeclared one pushes out the least recently used', () => {
    const windows = new ProducerDedupWindows<string>({ windowMs: 60_000, maxEntries: 10, producers: 2 });
    windows.claim('a', 'x', done('a'), 'fp');
    windows.claim('b', 'x', done('b'), 'fp');
    windows.claim('a', 'y', done('a'), 'fp');
    windows.claim('c', 'x', done('c'), 'fp');
    expect(windows.find('b', 'x')).toBeUndefined();
    expect(windows.find('a', 'x')).toBeDefined();
    expect(windows.find('c', 'x')).toBeDefined();
  });
});
