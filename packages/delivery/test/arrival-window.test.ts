import { describe, expect, it } from 'vitest';
import { ArrivalWindow } from '../src/arrival-window.ts';

describe('ArrivalWindow', () => {
  it('lets limit requests go, then holds the next until a second after the oldest response', () => {
    const w = new ArrivalWindow(2);
    expect(w.waitMs(0)).toBe(0);
    const a = w.sent(0);
    expect(w.waitMs(0)).toBe(0);
    w.sent(10);
    w.done(a, 30, 0);
    // The third waits for one second after the first's response, not its send.
    expect(w.waitMs(100)).toBe(930);
    w.sent(1030);
    expect(w.waitMs(1030)).toBe(0);
  });

  it('falls back on the send time while the request `limit` places back is in flight', () => {
    const w = new ArrivalWindow(1);
    w.sent(100);
    expect(w.waitMs(150)).toBe(950);
  });

  it('ignores a late response for a slot already reused', () => {
    const w = new ArrivalWindow(1);
    const first = w.sent(0);
    w.sent(1000);
    w.done(first, 5000, 0);
    expect(w.waitMs(1500)).toBe(500);
  });
});
