import {
  type ManagedSecretState,
  recordVersionFor,
  type SubscriberDefinition,
  type SubscriberRecord,
} from '@hookstream/contracts';

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

/** The record disabled by hookstream itself (a 410, or failure for disableAfterMs). Pure. */
export function disabledRecord(
  record: SubscriberRecord,
  disable: { readonly reason: string; readonly cause: 'gone' | 'failing'; readonly now: Date },
): SubscriberRecord {
  const at = disable.now.toISOString();
  return {
    ...record,
    state: { kind: 'disabled', reason: disable.reason.slice(0, MAX_REASON), at, cause: disable.cause },
    updatedAt: at,
  };
}

/**
 * The record of a subscriber that runs from a definition file (`push --config`) and has none in
 * the catalog yet: its definition, its secret reference moved to the record (as apply does). Pure.
 */
export function recordOfDefinition(definition: SubscriberDefinition, now: Date): SubscriberRecord {
  const { secret, ...rest } = definition;
  const at = now.toISOString();
  return {
    version: recordVersionFor(rest),
    definition: rest,
    ...(secret === undefined ? {} : { secret }),
    state: { kind: 'active' },
    createdAt: at,
    updatedAt: at,
  };
}
