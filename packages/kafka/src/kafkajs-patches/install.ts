// Imported first by the package's index, and only there: the record decoder must be in Node's
// module cache before kafkajs's batch decoder loads (at a consumer's first fetch), and the other
// patches must be in place before the first connection or send. See README.md beside this file.
import { createRequire } from 'node:module';
import { patchKafkajsFetchSlots } from './fetch-slots.ts';
import { installPatches, type KafkajsPatch, type PatchReport } from './guard.ts';
import { patchKafkajsIdleLoop } from './idle-loop.ts';
import { patchKafkajsOffsetOutOfRange } from './offset-out-of-range.ts';
import { patchKafkajsPausedFetch } from './paused-fetch.ts';
import { patchKafkajsProduceEncoding } from './produce-encoding.ts';
import { patchKafkajsProduceRetry } from './produce-retry.ts';
import { preloadRecordDecoder } from './record-decoder.ts';
import { patchKafkajsRejoinBarrier } from './rejoin-barrier.ts';

/**
 * In install order: the decoder first, before anything else of kafkajs's protocol loads, and the
 * send before anything loads kafkajs's producer.
 */
const PATCHES: readonly KafkajsPatch[] = [
  { name: 'record-decoder', kind: 'performance', install: preloadRecordDecoder },
  // A retry resends only the partitions not written: without it, records are written twice.
  { name: 'produce-retry', kind: 'correctness', install: patchKafkajsProduceRetry },
  { name: 'produce-encoding', kind: 'performance', install: patchKafkajsProduceEncoding },
  { name: 'idle-loop', kind: 'performance', install: patchKafkajsIdleLoop },
  { name: 'paused-fetch', kind: 'performance', install: patchKafkajsPausedFetch },
  // Bounds the fetch answers a fleet decodes at once, as when a thousand groups rebalance together.
  { name: 'fetch-slots', kind: 'performance', install: patchKafkajsFetchSlots },
  { name: 'offset-out-of-range', kind: 'correctness', install: patchKafkajsOffsetOutOfRange },
  // Fewer duplicates at a rebalance; delivery stays at least once without it.
  { name: 'rejoin-barrier', kind: 'performance', install: patchKafkajsRejoinBarrier },
];

const require = createRequire(import.meta.url);

/** What was installed in this process. */
export const kafkajsPatches: PatchReport = installPatches(PATCHES, {
  kafkajsVersion: (require('kafkajs/package.json') as { version: string }).version,
  // Vitest sets it in its workers; the commands a test spawns inherit it.
  underTest: process.env.VITEST !== undefined,
  warn: (message) => process.emitWarning(message, 'HookstreamKafkajsWarning'),
});
