import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ATTEMPT_LOG_TOPIC,
  formatLocation,
  type RecordLocation,
  replayLogTopicName,
  type SubscriberName,
} from '@hookstream/contracts';
import { type KafkaConnection, KafkaReadError, RecordSender, readTopic } from '@hookstream/kafka';
import {
  buildTierRecord,
  checkReplayable,
  indexReplayLog,
  planReplay,
  type Replayable,
  ReplayError,
  type ReplayItem,
  type ReplayRequest,
  type ReplaySummary,
  replayAttemptEntry,
  replayLogRecord,
  replayTopic,
  selectDeadLetters,
} from '@hookstream/replay';
import { trace } from '@opentelemetry/api';
import { readDeadLetters } from './read-dead-letters.ts';
import { replayLogTopic } from './replay-log-topic.ts';
import { endReplaySpan, failReplaySpan, startReplaySpan } from './replay-span.ts';

const MAX_CHUNK = 100;

/**
 * Puts selected dead letters back into the subscriber's retry path (tier 1, never the events
 * topic). Each chunk is written and acknowledged (acks=all) before its replay log entries are,
 * so a crash in between can replay a record twice (the subscriber deduplicates on webhook-id),
 * never lose one.
 */
export async function replayDeadLetters(
  kafka: KafkaConnection,
  request: ReplayRequest,
): Promise<ReplaySummary> {
  const { subscriber } = request;
  const topic = replayTopic(subscriber);
  const replayId = `rpl_${randomUUID()}`;
  const admin = kafka.admin();
  await admin.connect();
  let plan: ReturnType<typeof planReplay>;
  let selected: number;
  try {
    const letters = await readDeadLetters(kafka, subscriber);
    if (!(await admin.topicExists(topic)))
      throw new ReplayError(
        'NO_RETRY_TIER',
        `retry tier ${topic} does not exist: start the subscriber's pusher once`,
      );
    const chosen = selectDeadLetters(letters, request.selection);
    selected = chosen.length;
    const logRecords = await readReplayLog(kafka, subscriber);
    plan = planReplay(chosen, (l) => checkReplayable(l, subscriber), indexReplayLog(logRecords), {
      again: request.again,
    });
    if (!request.dryRun && plan.send.length > 0)
      await admin.ensureTopics([replayLogTopic(subscriber, await admin.brokerCount())]);
  } finally {
    await admin.disconnect();
  }
  const base = {
    replayId,
    subscriber,
    dryRun: request.dryRun,
    topic,
    selected,
    alreadyReplayed: plan.alreadyReplayed.map(({ letter, entry }) => ({
      eventId: letter.eventId,
      dlq: formatLocation(letter.location),
      detail: `replayed ${entry.replayedAt}${entry.operator ? ` by ${entry.operator}` : ''} (${entry.replayId})`,
    })),
    unreplayable: plan.unreplayable.map(({ letter, problem }) => ({
      eventId: letter.eventId,
      dlq: formatLocation(letter.location),
      detail: problem,
    })),
  };
  if (request.dryRun) {
    const replayed = plan.send.map((r) => ({
      eventId: r.eventId,
      dlq: formatLocation(r.letter.location),
      detail: `would go to ${topic}`,
    }));
    return { ...base, replayed };
  }
  const replayed = await send(kafka, plan.send, { ...request, topic, replayId });
  return { ...base, replayed };
}

async function readReplayLog(kafka: KafkaConnection, subscriber: SubscriberName) {
  try {
    return await readTopic(kafka, { topic: replayLogTopicName(subscriber), purpose: 'replays' });
  } catch (err) {
    // No replay log yet: nothing was ever replayed for this subscriber.
    if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return [];
    throw err;
  }
}

async function send(
  kafka: KafkaConnection,
  items: readonly Replayable[],
  options: ReplayRequest & { readonly topic: string; readonly replayId: string },
): Promise<ReplayItem[]> {
  const { topic, replayId } = options;
  const sender = new RecordSender(kafka, { ackTimeoutMs: 10_000, retries: 5 });
  const tracer = trace.getTracer('hookstream-replay');
  const rate = options.ratePerSecond;
  const chunkSize = rate === undefined ? MAX_CHUNK : Math.max(1, Math.min(MAX_CHUNK, Math.floor(rate / 4)));
  const replayed: ReplayItem[] = [];
  await sender.connect();
  let attemptLog: boolean | undefined;
  const started = Date.now();
  try {
    for (let i = 0; i < items.length; i += chunkSize) {
      const chunk = items.slice(i, i + chunkSize);
      const nowMs = Date.now();
      const spans = chunk.map((r) => startReplaySpan(tracer, topic, r, replayId, r.letter.key ?? r.eventId));
      const records = chunk.map((r, j) =>
        buildTierRecord(r, {
          replayId,
          nowMs,
          operator: options.operator,
          ...(spans[j]?.traceparent === undefined ? {} : { traceparent: spans[j].traceparent }),
        }),
      );
      let positions: Awaited<ReturnType<RecordSender['send']>>;
      try {
        positions = await sender.send(topic, records);
      } catch (err) {
        for (const s of spans) failReplaySpan(s.span, err);
        throw new ReplayError(
          'KAFKA_UNAVAILABLE',
          `writing to ${topic} failed after ${replayed.length} of ${items.length} replayed (run again to continue): ${(err as Error).message}`,
          { cause: err },
        );
      }
      // RecordSender returns one position per record, in order.
      const done = chunk.map((r, j) => {
        const p = positions[j];
        const span = spans[j];
        if (p === undefined || span === undefined)
          throw new Error('RecordSender returned fewer positions than records');
        endReplaySpan(span.span, p.partition, p.offset);
        const tier: RecordLocation = { topic, partition: p.partition, offset: p.offset };
        return { r, tier, log: replayLogRecord(r, tier, { replayId, nowMs, operator: options.operator }) };
      });
      await sender.send(
        replayLogTopicName(options.subscriber),
        done.map(({ log }) => ({ key: log.key, value: log.value, headers: {} })),
      );
      attemptLog ??= await hasAttemptLog(kafka);
      if (attemptLog)
        await writeAttempts(sender, chunk, { nowMs, operator: options.operator }, options.onWarning);
      for (const { r, tier } of done)
        replayed.push({
          eventId: r.eventId,
          dlq: formatLocation(r.letter.location),
          detail: formatLocation(tier),
        });
      options.onProgress?.(replayed.length, items.length);
      if (rate !== undefined && replayed.length < items.length) {
        const due = started + (replayed.length / rate) * 1000;
        if (due > Date.now()) await sleep(due - Date.now());
      }
    }
  } finally {
    await sender.disconnect();
  }
  return replayed;
}

async function hasAttemptLog(kafka: KafkaConnection): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await admin.topicExists(ATTEMPT_LOG_TOPIC);
  } finally {
    await admin.disconnect();
  }
}

/** The attempt log is what `ledger` reads; failing to write it must not fail the replay. */
async function writeAttempts(
  sender: RecordSender,
  chunk: readonly Replayable[],
  stamp: { readonly nowMs: number; readonly operator: string },
  warn: ((message: string) => void) | undefined,
): Promise<void> {
  try {
    await sender.send(
      ATTEMPT_LOG_TOPIC,
      chunk.map((r) => ({
        key: r.eventId,
        value: Buffer.from(JSON.stringify(replayAttemptEntry(r, stamp.nowMs, stamp.operator))),
        headers: {},
      })),
    );
  } catch (err) {
    warn?.(`could not record the replay in ${ATTEMPT_LOG_TOPIC}: ${(err as Error).message}`);
  }
}
