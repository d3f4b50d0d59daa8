import {
  type DeadLetterEvidence,
  formatLocation,
  type RecordLocation,
  retryTopicName,
  type SubscriberName,
  writeHsHeaders,
} from '@hookstream/contracts';
import type { DeadLetter } from './dead-letter.ts';

/** A record ready to write (the shape @hookstream/kafka's RecordSender takes). */
export interface TierRecord {
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** A dead letter that can go back: its evidence parsed, an event id, a value to deliver. */
export interface Replayable {
  readonly letter: DeadLetter;
  readonly evidence: DeadLetterEvidence;
  readonly eventId: string;
  readonly value: Buffer;
}

/** Why a dead letter cannot be replayed to this subscriber, or the parts a replay needs. */
export function checkReplayable(
  letter: DeadLetter,
  subscriber: SubscriberName,
): { ok: true; replayable: Replayable } | { ok: false; problem: string } {
  if (letter.evidence === null) return { ok: false, problem: letter.problem ?? 'no evidence headers' };
  if (letter.evidence.subscriber !== subscriber)
    return {
      ok: false,
      problem: `dead-lettered for subscriber ${letter.evidence.subscriber}, not ${subscriber}`,
    };
  const ev = letter.evidence;
  if (ev.reason === 'lost')
    return {
      ok: false,
      problem: `a lost range (${ev.lostCount ?? '?'} records of ${ev.origin.topic}:${ev.origin.partition}, offsets ${ev.lostFrom ?? ev.origin.offset}..${ev.lostTo ?? '?'}): retention deleted them before the subscriber read them, so there is no event to replay; send them again from their source`,
    };
  const eventId = letter.evidence.eventId;
  if (eventId === undefined) return { ok: false, problem: 'no event id (an unreadable poison record)' };
  if (letter.value === null) return { ok: false, problem: 'no value to deliver' };
  return { ok: true, replayable: { letter, evidence: letter.evidence, eventId, value: letter.value } };
}

export interface ReplayStamp {
  /** One id per replay run, so a run's records can be found together. */
  readonly replayId: string;
  readonly nowMs: number;
  /** Who replays (recorded on the tier record and in the replay log). */
  readonly operator: string;
  /** The traceparent of the replay's PRODUCER span; without tracing the DLQ record's stays. */
  readonly traceparent?: string;
}

/** Retry tier 1: where a replay puts records (the subscriber's retry path, never the events topic). */
export function replayTopic(subscriber: SubscriberName): string {
  return retryTopicName(subscriber, 1);
}

/**
 * The tier-1 record for a replay: the original key, value and headers (ce_*, content-type,
 * traceparent) unchanged, the DLQ's hookstream_* evidence dropped, and a fresh retry state: a
 * new attempt budget (attempts 0), due now, the same origin, linked to the DLQ record it came
 * from (replay_of, source_*) and counted (replays).
 */
export function buildTierRecord(r: Replayable, stamp: ReplayStamp): TierRecord {
  const dlq = r.letter.location;
  return freshTierRecord(
    // Events always carry a key; a keyless record keeps per-event order by its id instead.
    { key: r.letter.key ?? r.eventId, value: r.value, headers: r.letter.headers },
    {
      eventId: r.eventId,
      subscriber: r.evidence.subscriber,
      origin: r.evidence.origin,
      source: dlq,
      replayOf: formatLocation(dlq),
      replays: (r.evidence.replays ?? 0) + 1,
    },
    stamp,
  );
}

/** Where a record sent again comes from, and what it is. */
export interface SentAgain {
  readonly eventId: string;
  readonly subscriber: SubscriberName;
  /** The events topic record it started from; absent for an event that never was there (an example). */
  readonly origin?: RecordLocation;
  /** The record it was copied from (the DLQ record, the events topic record). */
  readonly source?: RecordLocation;
  readonly replayOf?: string;
  readonly replays?: number;
}

/**
 * A tier-1 record with a fresh retry state (attempts 0, due now), for anything put back on a
 * subscriber's own retry path: a replayed dead letter, a resent message, an example. The given
 * headers travel unchanged (ce_*, content-type, traceparent: the event keeps its id) except any
 * hookstream_* ones, which are rewritten for this hop.
 */
export function freshTierRecord(
  record: {
    readonly key: string;
    readonly value: Buffer;
    readonly headers: Readonly<Record<string, string>>;
  },
  what: SentAgain,
  stamp: ReplayStamp,
): TierRecord {
  const original: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.headers)) {
    if (!name.startsWith('hookstream_')) original[name] = value;
  }
  if (stamp.traceparent !== undefined) original.traceparent = stamp.traceparent;
  return {
    key: record.key,
    value: record.value,
    headers: {
      ...original,
      ...writeHsHeaders({
        eventId: what.eventId,
        subscriber: what.subscriber,
        attempts: 0,
        dueAtMs: stamp.nowMs,
        origin: what.origin,
        source: what.source,
        replayOf: what.replayOf,
        replayId: stamp.replayId,
        replayedBy: stamp.operator,
        replays: what.replays,
      }),
    },
  };
}
