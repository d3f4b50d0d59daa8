import type { LedgerStep } from '@hookstream/contracts';
import type { MessageState } from './contracts.ts';

/** An endpoint's state is its latest step's. */
export function endpointState(step: LedgerStep): MessageState {
  switch (step) {
    case 'delivered':
      return 'delivered';
    case 'retry-scheduled':
      return 'pending';
    case 'dead-lettered':
      return 'failed';
    case 'filtered':
      return 'filtered';
  }
}

/**
 * A message's state from its endpoints' states: what needs a look first wins (a failure, then
 * work still under way); filtered only when no endpoint took it.
 */
export function messageState(states: readonly MessageState[]): MessageState {
  if (states.includes('failed')) return 'failed';
  if (states.includes('pending')) return 'pending';
  if (states.length > 0 && states.every((s) => s === 'filtered')) return 'filtered';
  return 'delivered';
}
