import { describe, expect, it } from 'vitest';
import { TenantTurns, type TurnsLimiter, turnsAhead } from '../src/tenant-turns.ts';

/** A limiter that starts the oldest request handed to it when the test says so. */
class SteppedLimiter implements TurnsLimiter {
  readonly #queue: { run: () => Promise<void>; signal: AbortSignal | undefined; done: (v: null) => void }[] =
    [];
  paused = 0;

  schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T | null> {
    return new Promise((resolve, reject) => {
      this.#queue.push({
        run: () => fn().then(resolve, reject),
        signal,
        done: resolve,
      });
    });
  }

  pauseFor(ms: number): void {
    this.paused = ms;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Starts the oldest request (one aborted in here ends without starting, as DestinationLimiter's). */
  async step(): Promise<void> {
    const next = this.#queue.shift();
    if (next === undefined) return;
    if (next.signal?.aborted) next.done(null);
    else await next.run();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function setup() {
  const limiter = new SteppedLimiter();
  const turns = new TenantTurns(limiter);
  const sent: string[] = [];
  const send = (name: string, tenant?: string, signal = new AbortController().signal) =>
    turns.schedule(
      async () => {
        sent.push(name);
        return name;
      },
      signal,
      tenant,
    );
  return { limiter, turns, sent, send };
}

describe('TenantTurns', () => {
  it("gives a tenant that arrives behind another's burst every other start", async () => {
    const { limiter, sent, send } = setup();
    const results = [];
    for (let i = 1; i <= 6; i++) results.push(send(`a${i}`, 'a'));
    for (let i = 1; i <= 3; i++) results.push(send(`b${i}`, 'b'));
    // One waits in the limiter; the rest wait for their tenant's turn.
    expect(limiter.queued).toBe(1);
    for (let i = 0; i < 9; i++) await limiter.step();
    expect(sent).toEqual(['a1', 'a2', 'b1', 'a3', 'b2', 'a4', 'b3', 'a5', 'a6']);
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1', 'b2', 'b3']);
  });

  it('requests without a tenant take their turn as one more tenant', async () => {
    const { limiter, sent, send } = setup();
    for (const [name, tenant] of [
      ['a1', 'a'],
      ['a2', 'a'],
      ['a3', 'a'],
      ['n1', undefined],
      ['n2', undefined],
      ['c1', 'c'],
    ] as const)
      void send(name, tenant);
    for (let i = 0; i < 6; i++) await limiter.step();
    expect(sent).toEqual(['a1', 'a2', 'n1', 'c1', 'a3', 'n2']);
  });

  it('a request aborted while it waits for its turn resolves null at once, never sends, and its turn passes', async () => {
    const { limiter, turns, sent, send } = setup();
    void send('a1', 'a');
    const stop = new AbortController();
    const aborted = send('b1', 'b', stop.signal);
    void send('b2', 'b');
    stop.abort();
    expect(await aborted).toBeNull();
    expect(turns.waiting).toBe(1);
    await limiter.step();
    await limiter.step();
    expect(sent).toEqual(['a1', 'b2']);
  });

  it('a request aborted inside the limiter before it starts frees its place for the next', async () => {
    const { limiter, sent, send } = setup();
    const stop = new AbortController();
    const first = send('a1', 'a', stop.signal);
    void send('b1', 'b');
    stop.abort();
    await limiter.step();
    expect(await first).toBeNull();
    expect(limiter.queued).toBe(1);
    await limiter.step();
    expect(sent).toEqual(['b1']);
  });

  it("passes a 429's pause to the destination's limiter", () => {
    const { limiter, turns } = setup();
    turns.pauseFor(1500);
    expect(limiter.paused).toBe(1500);
  });

  it('hands one request ahead at up to 200/s, more above, never more than the concurrency', () => {
    expect(turnsAhead({ perSecond: 5, burst: 0 }, 10)).toBe(1);
    expect(turnsAhead({ perSecond: 200, burst: 0 }, 10)).toBe(1);
    expect(turnsAhead({ perSecond: 1000, burst: 0 }, 10)).toBe(5);
    expect(turnsAhead({ perSecond: 5000, burst: 1000 }, 10)).toBe(10);
  });

  it('with two ahead, two wait in the limiter and the turns go on behind them', async () => {
    const limiter = new SteppedLimiter();
    const turns = new TenantTurns(limiter, { ahead: 2 });
    const sent: string[] = [];
    const signal = new AbortController().signal;
    for (const [name, tenant] of [
      ['a1', 'a'],
      ['a2', 'a'],
      ['a3', 'a'],
      ['a4', 'a'],
      ['a5', 'a'],
      ['b1', 'b'],
    ] as const)
      void turns.schedule(async () => void sent.push(name), signal, tenant);
    expect(limiter.queued).toBe(2);
    for (let i = 0; i < 6; i++) await limiter.step();
    // a1 and a2 were in the limiter before b1 came; a3 was handed in a's turn, then b's.
    expect(sent).toEqual(['a1', 'a2', 'a3', 'b1', 'a4', 'a5']);
  });
});
