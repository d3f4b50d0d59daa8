export type {
  AttemptResult,
  Classification,
  DeadLetterReason,
  Decision,
  DecisionInput,
  OutcomeClass,
  OutcomeReason,
} from './policy.ts';
export { backoffDelayMs, classify, decide, POLICY_VERSION } from './policy.ts';
export { MAX_RETRY_AFTER_MS, parseRetryAfter } from './retry-after.ts';
