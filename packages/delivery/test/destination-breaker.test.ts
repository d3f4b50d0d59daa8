import { BreakerSettings } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import type { BreakerTransition, SharedOpen } from '../src/breaker-policy.ts';
import type { BreakerStore } from '../src/breaker-store.ts';
import { DestinationBreaker, type FleetBreakerChange } from '../src/destination-breaker.ts';

/** The store as another instance would see it: one open state, one probe slot. */
class MemoryStore implements BreakerStore {
  shared: SharedOpen | null = null;
  slotUntil = 0;
  claims = 0;

  async read() {
    return this.shared;
  }
  async open(state: SharedOpen) {
    if (this.shared !== null) return false;
    this.shared = state;
    return true;
  }
  async close() {
    const ended = this.shared;
    this.shared = null;
    return ended;
  }
  async claimProbe(ttlMs: number): Promise<true | { heldForMs: number }> {
    this.claims++;
    const now = Date.now();
    if (now < this.slotUntil) return { heldForMs: this.slotUntil - now };
    this.slotUntil = now + ttlMs;
    return true;
  }
  async holdProbe(ttlMs: number) {
    this.slotUntil = Date.now() + ttlMs;
  }
  async stop() {}
}

const settings = BreakerSettings.parse({ consecutiveFailures: 2, probeIntervalMs: 150 });
const far = () => Date.now() + 60_000;

function breaker(store?: BreakerStore) {
  const transitions: BreakerTransition[] = [];
  const changes: FleetBreakerChange[] = [];
  const b = new DestinationBreaker({
    settings,
    disableAfterMs: 60_000,
    ...(store ? { store, pollMs: 20 } : {}),
    onTransition: (t) => transitions.push(t),
    onFleetChange: (c) => changes.push(c),
  });
  return { b, transitions, changes };
}

describe('DestinationBreaker: waiting records, one probe, sharing', () => {
  it('lets records go while closed; once open they wait and exactly one is let out per interval', async () => {
    const { b, transitions } = breaker();
    const signal = new AbortController().signal;
    expect(await b.admit(signal, far())).toBe('go');
    b.report('failure', false);
    // The interval runs from the clock reading inside the opening report, which is no earlier
    // than this one; any reading taken after it (the transition's callback included) may be late
    // by a pause of a loaded machine, and would shorten the wait the test sees.
    const beforeOpening = Date.now();
    b.report('failure', false);
    expect(b.phase).toBe('open');
    const waiting = Array.from({ length: 5 }, () => b.admit(signal, far()));
    const first = await Promise.race(waiting.map((p, i) => p.then((a) => ({ a, i }))));
    expect(first.a).toBe('probe');
    expect(Date.now() - beforeOpening).toBeGreaterThanOrEqual(150);
    expect(b.phase).toBe('half-open');
    b.report('failure', true);
    expect(b.phase).toBe('open');
    b.report('success', false);
    const rest = await Promise.all(waiting.filter((_, i) => i !== first.i));
    expect(rest).toEqual(['go', 'go', 'go', 'go']);
    expect(transitions.map((t) => `${t.from}>${t.to}`)).toEqual([
      'closed>open',
      'open>half-open',
      'half-open>open',
      'open>closed',
    ]);
    await b.stop();
  });

  it('a waiting record whose age ceiling passes is expired; an aborted one ends at once', async () => {
    const { b } = breaker();
    b.report('failure', false);
    b.report('failure', false);
    expect(await b.admit(new AbortController().signal, Date.now() + 30)).toBe('expired');
    const controller = new AbortController();
    const waiting = b.admit(controller.signal, far());
    controller.abort();
    expect(await waiting).toBe('aborted');
    await b.stop();
  });

  it('held, nothing goes until the record is aborted or the hold released', async () => {
    const { b } = breaker();
    b.hold();
    const controller = new AbortController();
    const held = b.admit(controller.signal, far());
    const released = b.admit(new AbortController().signal, far());
    controller.abort();
    expect(await held).toBe('aborted');
    b.release();
    expect(await released).toBe('go');
    await b.stop();
  });

  it('two instances on one store: one opening opens both, one probe between them, a success closes both', async () => {
    const store = new MemoryStore();
    const one = breaker(store);
    const two = breaker(store);
    await Promise.all([one.b.start(), two.b.start()]);
    one.b.report('failure', false);
    one.b.report('failure', false);
    await expectEventually(() => two.b.phase === 'open');
    const signal = new AbortController().signal;
    const admissions: string[] = [];
    const a = one.b.admit(signal, far()).then((x) => admissions.push(`one:${x}`));
    const c = two.b.admit(signal, far()).then((x) => admissions.push(`two:${x}`));
    await expectEventually(() => admissions.length === 1);
    expect(admissions[0]).toMatch(/probe$/);
    const prober = admissions[0]?.startsWith('one') ? one.b : two.b;
    prober.report('success', true);
    await Promise.all([a, c]);
    expect(admissions[1]).toMatch(/go$/);
    expect(store.shared).toBeNull();
    await expectEventually(() => one.b.phase === 'closed' && two.b.phase === 'closed');
    await Promise.all([one.b.stop(), two.b.stop()]);
  }, 60_000);

  it('two instances on one store: after a failed probe the next goes one interval after its answer', async () => {
    const store = new MemoryStore();
    const one = breaker(store);
    const two = breaker(store);
    await Promise.all([one.b.start(), two.b.start()]);
    one.b.report('failure', false);
    one.b.report('failure', false);
    await expectEventually(() => two.b.phase === 'open');
    const signal = new AbortController().signal;
    expect(await one.b.admit(signal, far())).toBe('probe');
    // Answered late, two thirds of an interval after its claim (a slow send, a loaded machine).
    await new Promise((r) => setTimeout(r, 100));
    const answeredAt = Date.now();
    one.b.report('failure', true);
    // The other instance's next probe waits for the slot the answer held again (10 ms: timers'
    // and Date's granularity; a lower bound holds however loaded the machine is).
    expect(await two.b.admit(signal, far())).toBe('probe');
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(140);
    two.b.report('success', true);
    await expectEventually(() => one.b.phase === 'closed' && two.b.phase === 'closed');
    await Promise.all([one.b.stop(), two.b.stop()]);
  }, 60_000);
});

describe('DestinationBreaker: an opening and a closing are told once for the fleet', () => {
  it('without a store, its own opening and closing, with since when it failed', async () => {
    const { b, changes } = breaker();
    b.report('failure', false);
    b.report('failure', false);
    expect(changes).toEqual([
      {
        kind: 'opened',
        cause: 'consecutive-failures',
        openedAtMs: expect.any(Number),
        failingSinceMs: expect.any(Number),
      },
    ]);
    const opened = changes[0];
    b.report('success', false);
    expect(changes[1]).toMatchObject({
      kind: 'closed',
      openedAtMs: opened?.openedAtMs,
      failingSinceMs: opened?.failingSinceMs,
    });
    expect(changes).toHaveLength(2);
    await b.stop();
  });

  it('two instances opening and closing at once: only the one whose write changed the store tells it', async () => {
    const store = new MemoryStore();
    const one = breaker(store);
    const two = breaker(store);
    await Promise.all([one.b.start(), two.b.start()]);
    // Both see the failures before either reads the other's opening.
    for (const { b } of [one, two]) {
      b.report('failure', false);
      b.report('failure', false);
    }
    await expectEventually(() => store.shared !== null && one.changes.length + two.changes.length > 0);
    await Promise.all([one.b.stop(), two.b.stop()]);
    const opened = [...one.changes, ...two.changes];
    expect(opened.map((c) => c.kind)).toEqual(['opened']);
    expect(opened[0]).toMatchObject({ openedAtMs: store.shared?.openedAtMs });
    // Both close it at once (each thinks it did): the store ended one opening, for one of them.
    const shared = store.shared;
    const three = breaker(store);
    const four = breaker(store);
    await Promise.all([three.b.start(), four.b.start()]);
    expect([three.b.phase, four.b.phase]).toEqual(['open', 'open']);
    expect(await three.b.admit(new AbortController().signal, far())).toBe('probe');
    // Before either write lands: the probe's success on one, another success on the other.
    three.b.report('success', true);
    four.b.report('success', false);
    expect([three.b.phase, four.b.phase]).toEqual(['closed', 'closed']);
    await Promise.all([three.b.stop(), four.b.stop()]);
    const closed = [...three.changes, ...four.changes];
    expect(closed).toEqual([{ kind: 'closed', ...shared, closedAtMs: expect.any(Number) }]);
  }, 60_000);
});

// 30 s: the conditions follow 20 ms polls; 2 s was a bound a stalled machine could reach.
async function expectEventually(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 30 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}
