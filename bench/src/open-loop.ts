import { setTimeout as sleep } from 'node:timers/promises';

/** Epoch milliseconds from the monotonic clock: the clock a SampleReceiver stamps arrivals with. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/** What an open-loop run sent: how many `send` accepted, and each event's scheduled time. */
export interface OpenLoopRun {
  readonly accepted: number;
  /** Event id → the time it was due to be published (epoch ms): where its latency starts. */
  readonly scheduled: Map<string, number>;
  /** Event id → when `send` resolved accepting it (epoch ms): for the ingress, its 2xx answer. */
  readonly answered: Map<string, number>;
}

/**
 * `count` events on a fixed schedule at `perSecond`, each sent at its time whether or not earlier
 * ones were answered (open loop: a slow answer delays nothing, so latency is not under-counted).
 * `send` resolves true when the event was accepted. Stops early, throwing, once `signal` aborts.
 */
export async function openLoop(
  count: number,
  perSecond: number,
  idOf: (n: number) => string,
  send: (id: string, n: number) => Promise<boolean>,
  signal?: AbortSignal,
): Promise<OpenLoopRun> {
  const scheduled = new Map<string, number>();
  const answered = new Map<string, number>();
  const sends: Promise<void>[] = [];
  let accepted = 0;
  const start = epochNow() + 5;
  for (let n = 0; n < count; n++) {
    signal?.throwIfAborted();
    const at = start + (n * 1000) / perSecond;
    const wait = at - epochNow();
    if (wait > 1) await sleep(wait);
    const id = idOf(n);
    scheduled.set(id, at);
    sends.push(
      send(id, n).then((ok) => {
        if (!ok) return;
        accepted++;
        answered.set(id, epochNow());
      }),
    );
  }
  await Promise.all(sends);
  return { accepted, scheduled, answered };
}
