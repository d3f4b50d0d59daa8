export type { LedgerAnswer, LedgerQuery } from './ledger-query.ts';
export { queryLedger } from './ledger-query.ts';
export { readDeadLetters } from './read-dead-letters.ts';
export { REPLAY_LOG_RETENTION_MS, replayLogTopic } from './replay-log-topic.ts';
export type { ReplayItem, ReplayRequest, ReplaySummary } from './replayer.ts';
export { replayDeadLetters } from './replayer.ts';
