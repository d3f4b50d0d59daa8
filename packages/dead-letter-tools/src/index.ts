export type { LedgerAnswer, LedgerQuery, ReplayItem, ReplayRequest, ReplaySummary } from '@hookstream/replay';
export { queryLedger } from './ledger-query.ts';
export { readDeadLetters } from './read-dead-letters.ts';
export type { ReconcileQuery, ReconcileReport } from './reconcile-query.ts';
export { reconcile } from './reconcile-query.ts';
export { REPLAY_LOG_RETENTION_MS, replayLogTopic } from './replay-log-topic.ts';
export { replayDeadLetters } from './replayer.ts';
