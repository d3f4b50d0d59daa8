import type { Arrival } from '@hookstream/receiver';

/** 2xx answers per event id for one subscription: 1 is one side effect, more are redeliveries. */
export function okAnswersByEvent(arrivals: readonly Arrival[], subscriptionId: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const a of arrivals) {
    if (a.subscriptionId !== subscriptionId || a.eventId === null) continue;
    if (a.status < 200 || a.status >= 300) continue;
    counts.set(a.eventId, (counts.get(a.eventId) ?? 0) + 1);
  }
  return counts;
}

/** Per event id, the `attempt` of every request that arrived for it, in arrival order. */
export function attemptsByEvent(
  arrivals: readonly { eventId: string | null; body?: Record<string, unknown> }[],
): Map<string, number[]> {
  const byEvent = new Map<string, number[]>();
  for (const a of arrivals) {
    if (a.eventId === null) continue;
    const list = byEvent.get(a.eventId) ?? [];
    list.push(Number(a.body?.attempt));
    byEvent.set(a.eventId, list);
  }
  return byEvent;
}
