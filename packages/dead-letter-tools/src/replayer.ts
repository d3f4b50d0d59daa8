import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ATTEMPT_LOG_TOPIC, formatLocation, type RecordLocation } from '@hookstream/contracts';
import { type KafkaConnection, KafkaFencedError, RecordSender } from '@hookstream/kafka';
import {
  buildTierRecord,
  checkReplayable,
  type DeadLetter,
  describeHolder,
  indexReplayLog,
  type LeaseHolder,
  leaseFromLog,
  liveLease,
  planReplay,
  REPLAY_LEASE_TTL_MS,
  type Replayable,
  ReplayError,
  type ReplayItem,
  type ReplayPlan,
  type ReplayRequest,
  type ReplaySummary,
  raceStartMs,
  replayAttemptEntry,
  replayLogRecord,
  replayTopic,
  selectDeadLetters,
} from '@hookstream/replay';
import { trace } from '@opentelemetry/api';
import { LeasedReplayWriter } from './leased-replay-writer.ts';
import { readDeadLetters } from './read-dead-letters.ts';
import { fencingHolder, readReplayLog } from './replay-log-reader.ts';
import { replayLogTopic } from './replay-log-topic.ts';
import { endReplaySpan, failReplaySpan, startReplaySpan } from './replay-span.ts';

const MAX_CHUNK = 100;
/** A run paced slower than this between chunks refreshes its lease while it waits. */
const LEASE_REFRESH_MS = REPLAY_LEASE_TTL_MS / 3;

/**
 * Puts selected dead letters back into the subscriber's retry path (tier 1, never the events
 * topic), one run at a time per subscriber across processes. A run that will write first reads
 * the replay log: a live lease of another run refuses it at once (REPLAY_LEASE_HELD, naming the
 * holder, nothing written). Otherwise it takes the lease (LeasedReplayWriter: the subscriber's
 * transactional id, which fences any run that raced past the same check), and only then reads
 * the replay log again to plan, so whatever an earlier run committed is skipped. Each chunk's
 * tier records, replay-log entries and lease are one transaction: a dead letter is replayed
 * exactly once by concurrent runs, and a run fenced mid-way stops (REPLAY_FENCED, naming the
 * run that took over).
 */
export async function replayDeadLetters(
  kafka: KafkaConnection,
  request: ReplayRequest,
): Promise<ReplaySummary> {
  const { subscriber } = request;
  const topic = replayTopic(subscriber);
  const replayId = `rpl_${randomUUID()}`;
  // Not this call's start: a run slowed down by a busy machine would resend a raced run's first chunks.
  const startedMs = raceStartMs(request, Date.now());
  const admin = kafka.admin();
  await admin.connect();
  let chosen: DeadLetter[];
  let plan: ReplayPlan;
  try {
    const letters = await readDeadLetters(kafka, subscriber);
    if (!(await admin.topicExists(topic)))
      throw new ReplayError(
        'NO_RETRY_TIER',
        `retry tier ${topic} does not exist: start the subscriber's pusher once`,
      );
    chosen = selectDeadLetters(letters, request.selection);
    const log = await readReplayLog(kafka, subscriber);
    plan = planOf(chosen, log, request, startedMs);
    if (!request.dryRun && plan.send.length > 0) {
      const held = liveLease(leaseFromLog(log), Date.now());
      if (held !== null)
        throw new ReplayError(
          'REPLAY_LEASE_HELD',
          `another replay of ${subscriber} is running: ${describeHolder(held)}. Nothing was written; run again once it is done (or once its lease expires, if it stopped)`,
        );
      await admin.ensureTopics([replayLogTopic(subscriber, await admin.brokerCount())]);
    }
  } finally {
    await admin.disconnect();
  }
  if (request.dryRun) {
    const replayed = plan.send.map((r) => ({
      eventId: r.eventId,
      dlq: formatLocation(r.letter.location),
      detail: `would go to ${topic}`,
    }));
    return { ...summaryOf(plan, chosen.length, { request, topic, replayId }), replayed };
  }
  if (plan.send.length === 0)
    return { ...summaryOf(plan, chosen.length, { request, topic, replayId }), replayed: [] };
  const holder: LeaseHolder = {
    subscriber,
    replayId,
    operator: request.operator,
    host: hostname(),
    pid: process.pid,
    tool: request.tool ?? 'cli',
  };
  const writer = await LeasedReplayWriter.take(kafka, holder).catch(async (err: unknown) => {
    throw await fencedError(kafka, holder, err, 0, plan.send.length);
  });
  try {
    // After the fence: what every earlier run committed is in the log, and none of them writes again.
    plan = planOf(chosen, await readReplayLog(kafka, subscriber), request, startedMs);
    const progress = { done: 0 };
    let replayed: ReplayItem[];
    try {
      replayed = await send(writer, kafka, plan.send, { ...request, topic, replayId }, progress);
    } catch (err) {
      throw await fencedError(kafka, holder, err, progress.done, plan.send.length);
    }
    await writer.release().catch(() => undefined);
    return { ...summaryOf(plan, chosen.length, { request, topic, replayId }), replayed };
  } finally {
    await writer.close();
  }
}

function planOf(
  chosen: readonly DeadLetter[],
  log: Parameters<typeof indexReplayLog>[0],
  request: ReplayRequest,
  startedMs: number,
): ReplayPlan {
  return planReplay(chosen, (l) => checkReplayable(l, request.subscriber), indexReplayLog(log), {
    again: request.again,
    startedMs,
  });
}

function summaryOf(
  plan: ReplayPlan,
  selected: number,
  run: { readonly request: ReplayRequest; readonly topic: string; readonly replayId: string },
): Omit<ReplaySummary, 'replayed'> {
  return {
    replayId: run.replayId,
    subscriber: run.request.subscriber,
    dryRun: run.request.dryRun,
    topic: run.topic,
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
}

/**
 * A fenced write as REPLAY_FENCED naming the run that took over; any other error unchanged. A
 * write that failed otherwise while another run's live lease is in the log was fenced too: a
 * broker mid-way through the newer run's transactions answers the older epoch
 * CONCURRENT_TRANSACTIONS until the client gives up, never PRODUCER_FENCED.
 */
async function fencedError(
  kafka: KafkaConnection,
  holder: LeaseHolder,
  err: unknown,
  done: number,
  total: number,
): Promise<unknown> {
  const fenced = err instanceof KafkaFencedError;
  const other = await fencingHolder(kafka, holder.subscriber, holder.replayId, fenced ? undefined : 0);
  if (!fenced && other === null) return err;
  const by =
    other === null
      ? 'another replay whose lease is not in the replay log yet (or the broker timed out this run)'
      : describeHolder(other);
  return new ReplayError(
    'REPLAY_FENCED',
    `replay ${holder.replayId} of ${holder.subscriber} was fenced by replay ${by}, after ${done} of ${total} replayed; the rest is that run's`,
    { cause: err },
  );
}

async function send(
  writer: LeasedReplayWriter,
  kafka: KafkaConnection,
  items: readonly Replayable[],
  options: ReplayRequest & { readonly topic: string; readonly replayId: string },
  progress: { done: number },
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
      const stamp = { replayId, nowMs, operator: options.operator };
      const tierOf = (p: { partition: number; offset: string }): RecordLocation => ({ topic, ...p });
      let positions: Awaited<ReturnType<LeasedReplayWriter['chunk']>>;
      try {
        positions = await writer.chunk(topic, records, (written) =>
          chunk.map((r, j) => {
            const p = written[j];
            if (p === undefined) throw new Error('the writer returned fewer positions than records');
            const { key, value } = replayLogRecord(r, tierOf(p), stamp);
            return { key, value, headers: {} };
          }),
        );
      } catch (err) {
        for (const s of spans) failReplaySpan(s.span, err);
        if (err instanceof KafkaFencedError) throw err;
        throw new ReplayError(
          'KAFKA_UNAVAILABLE',
          `writing to ${topic} failed after ${replayed.length} of ${items.length} replayed (run again to continue): ${(err as Error).message}`,
          { cause: err },
        );
      }
      chunk.forEach((r, j) => {
        const p = positions[j];
        const span = spans[j];
        if (p === undefined || span === undefined)
          throw new Error('the writer returned fewer positions than records');
        endReplaySpan(span.span, p.partition, p.offset);
        replayed.push({
          eventId: r.eventId,
          dlq: formatLocation(r.letter.location),
          detail: formatLocation(tierOf(p)),
        });
      });
      progress.done = replayed.length;
      attemptLog ??= await hasAttemptLog(kafka);
      if (attemptLog)
        await writeAttempts(sender, chunk, { nowMs, operator: options.operator }, options.onWarning);
      options.onProgress?.(replayed.length, items.length);
      if (rate !== undefined && replayed.length < items.length) {
        const due = started + (replayed.length / rate) * 1000;
        // A slow pace must not let the lease expire between chunks.
        while (due > Date.now()) {
          await sleep(Math.min(due - Date.now(), LEASE_REFRESH_MS));
          if (due > Date.now()) await writer.refresh();
        }
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
