export type { LedgerAnswer, LedgerQuery, ReplayItem, ReplayRequest, ReplaySummary } from '@hookstream/replay';
export { queryLedger } from './ledger-query.ts';
export { readDeadLetters } from './read-dead-letters.ts';
export { REPLAY_LOG_RETENTION_MS, replayLogTopic } from './replay-log-topic.ts';
export { replayDeadLetters } from './replayer.ts';
