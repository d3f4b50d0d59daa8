export type { DeadLetter } from './dead-letter.ts';
export { readDeadLetter } from './dead-letter.ts';
export type { ReplayErrorCode } from './errors.ts';
export { ReplayError } from './errors.ts';
export type { Committed, LedgerLine, LedgerState, RewindNote, TenantFilter, TypeFilter } from './ledger.ts';
export {
  aboveLedger,
  attemptEntriesFor,
  latestStep,
  originFromEntries,
  resolveLedger,
  resolveLedgers,
  subscribersFromGroups,
} from './ledger.ts';
export type { LedgerAnswer, LedgerQuery } from './ledger-answer.ts';
export type {
  Hop,
  ListedObligation,
  LostRange,
  PartitionLedger,
  RequiredSubscriber,
  RetentionBoundary,
  SubscriberTally,
  Verdict,
  WindowPartition,
} from './reconcile.ts';
export {
  BROKEN_STATES,
  classifyObligation,
  LISTED_STATES,
  ledgerDetail,
  lostInWindow,
  obligation,
  owedFromMs,
  ReconcileState,
  ReconcileTally,
  reconcileExitCode,
  requiredSubscriber,
  SubscriberEvidence,
} from './reconcile.ts';
export { replayAttemptEntry } from './replay-attempt.ts';
export type { LeaseHolder } from './replay-lease.ts';
export {
  describeHolder,
  leaseFromLog,
  leaseRecord,
  leaseRelease,
  liveLease,
  REPLAY_LEASE_KEY,
  REPLAY_LEASE_TTL_MS,
  ReplayLease,
  ReplayTool,
  supersedingLease,
} from './replay-lease.ts';
export type { ReplayedIndex, ReplayPlan } from './replay-log.ts';
export { indexReplayLog, planReplay, ReplayLogEntry, replayLogKey, replayLogRecord } from './replay-log.ts';
export type { ProgressStream } from './replay-progress.ts';
export { ReplayProgress } from './replay-progress.ts';
export { type ReplayItem, type ReplayRequest, type ReplaySummary, raceStartMs } from './replay-request.ts';
export {
  compareDeadLetters,
  DlqSelection,
  matchesStatus,
  StatusMatch,
  selectDeadLetters,
} from './selection.ts';
export type { SelectionFlags } from './selection-options.ts';
export { parseInstant, parseRate, parseSelectionFlags } from './selection-options.ts';
export type { StoredRecord } from './stored-record.ts';
export type { Replayable, ReplayStamp, SentAgain, TierRecord } from './tier-record.ts';
export { buildTierRecord, checkReplayable, freshTierRecord, replayTopic } from './tier-record.ts';
