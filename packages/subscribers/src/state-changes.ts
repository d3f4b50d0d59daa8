import type { ManagedSecretState, SubscriberRecord } from '@hookstream/contracts';

/** At most this much reason is kept (the contract's bound). */
const MAX_REASON = 500;

/** The record paused by an operator; pausing again updates the reason. Pure. */
export function pausedRecord(
  record: SubscriberRecord,
  pause: { readonly reason: string; readonly by: string; readonly now: Date },
): SubscriberRecord {
  const at = pause.now.toISOString();
  return {
    ...record,
    state: {
      kind: 'paused',
      reason: pause.reason.slice(0, MAX_REASON),
      by: pause.by.slice(0, 200) || 'unknown',
      at,
    },
    updatedAt: at,
  };
}

/** The record active again (from paused or disabled); null when it already is. Pure. */
export function resumedRecord(record: SubscriberRecord, now: Date): SubscriberRecord | null {
  if (record.state.kind === 'active') return null;
  return { ...record, state: { kind: 'active' }, updatedAt: now.toISOString() };
}

/** The record with a new managed secret state. Pure. */
export function withManagedSecret(
  record: SubscriberRecord,
  secret: ManagedSecretState,
  now: Date,
): SubscriberRecord {
  return { ...record, secret, updatedAt: now.toISOString() };
}
