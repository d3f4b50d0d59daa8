import { createHash } from 'node:crypto';
import {
  type EventDataByType,
  isNoticeType,
  type LogFn,
  NOTICES_TOPIC_PREFIX,
  type RecordLocation,
} from '@hookstream/contracts';
import { type NoticePublisher, noticeOptions } from '@hookstream/subscribers';
import type { DeliveryOutcome, RecordContext } from './delivery-outcome.ts';

/** At most this many `subscriber.dead_lettered` a window per subscriber and instance… */
export const DEAD_LETTER_NOTICES_PER_WINDOW = 10;
/** …then one more when the window ends, counting those that got none. */
export const DEAD_LETTER_NOTICE_WINDOW_MS = 60_000;

/** One dead letter, as its notice tells it. */
export interface DeadLetterFact {
  /** The notice's id: the record dead-lettered, so a record dead-lettered again after a crash repeats it. */
  readonly id: string;
  readonly eventId: string | null;
  readonly type: string | null;
  readonly reason: string;
  readonly attempts: number;
  readonly status: number | null;
  readonly outcome: string | null;
  readonly atMs: number;
}

/**
 * The fact of a dead-lettered step; null for any other step and for a notice: a notice
 * subscriber that dead-letters notices would otherwise be told so by notices it dead-letters
 * too, without end.
 */
export function deadLetterFact(
  subscriber: string,
  ctx: RecordContext,
  step: DeliveryOutcome,
  atMs: number,
): DeadLetterFact | null {
  if (step.kind !== 'dead-lettered') return null;
  if (ctx.origin.topic.startsWith(NOTICES_TOPIC_PREFIX) || (ctx.type !== undefined && isNoticeType(ctx.type)))
    return null;
  const { trail } = step;
  const classification = trail.classification;
  return {
    id: `subscriber.dead_lettered:${subscriber}:${locationHash(ctx.here)}`,
    eventId: trail.eventId,
    type: ctx.type ?? null,
    reason: step.reason,
    attempts: trail.attempts,
    status: classification?.status ?? null,
    outcome: classification?.reason ?? null,
    atMs,
  };
}

/** Short and of fixed length: a tier's topic name would make an id past the contract's 200. */
function locationHash(at: RecordLocation): string {
  return createHash('sha256').update(`${at.topic}\0${at.partition}\0${at.offset}`).digest('hex').slice(0, 24);
}

export interface DeadLetterNoticesOptions {
  readonly subscriber: string;
  /** The subscriber's tenant: its notices carry it, so only that tenant's subscribers take them. */
  readonly tenant?: string | undefined;
  readonly eventsTopic: string;
  readonly notices: () => Promise<NoticePublisher>;
  readonly log: LogFn;
  readonly perWindow?: number;
  readonly windowMs?: number;
  readonly now?: () => number;
}

/**
 * `subscriber.dead_lettered` for one subscriber, bounded: in a window that starts at a dead
 * letter, the first `perWindow` get a notice each; the others are counted, and when the window
 * ends one notice names the last of them and carries the count of the rest as `suppressed`. So
 * every dead letter is named by one notice or counted by one, and a subscriber dead-lettering
 * thousands a second sends at most perWindow + 1 a window from each instance. Best effort: the
 * dead letter is durable in the DLQ already; a notice that cannot be published is logged.
 */
export class DeadLetterNotices {
  readonly #options: DeadLetterNoticesOptions;
  readonly #perWindow: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #windowEndsAtMs: number | null = null;
  #sent = 0;
  /** The last dead letter past the bound, and how many there were in this window. */
  #over: { last: DeadLetterFact; count: number } | null = null;
  #timer: NodeJS.Timeout | undefined;
  readonly #publishing = new Set<Promise<void>>();

  constructor(options: DeadLetterNoticesOptions) {
    this.#options = options;
    this.#perWindow = options.perWindow ?? DEAD_LETTER_NOTICES_PER_WINDOW;
    this.#windowMs = options.windowMs ?? DEAD_LETTER_NOTICE_WINDOW_MS;
    this.#now = options.now ?? Date.now;
  }

  deadLettered(fact: DeadLetterFact): void {
    const now = this.#now();
    if (this.#windowEndsAtMs !== null && now >= this.#windowEndsAtMs) this.#endWindow();
    if (this.#windowEndsAtMs === null) {
      this.#windowEndsAtMs = now + this.#windowMs;
      this.#sent = 0;
    }
    if (this.#sent < this.#perWindow) {
      this.#sent++;
      this.#publish(fact, 0);
      return;
    }
    this.#over = { last: fact, count: (this.#over?.count ?? 0) + 1 };
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#endWindow(), this.#windowEndsAtMs - now);
      this.#timer.unref();
    }
  }

  /** Sends the window's count, if any, and waits for the notices in flight. */
  async stop(): Promise<void> {
    this.#endWindow();
    await Promise.all(this.#publishing);
  }

  #endWindow(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#windowEndsAtMs = null;
    const over = this.#over;
    this.#over = null;
    if (over !== null) this.#publish(over.last, over.count - 1);
  }

  #publish(fact: DeadLetterFact, suppressed: number): void {
    const { subscriber, tenant, eventsTopic, notices, log } = this.#options;
    const data: EventDataByType['subscriber.dead_lettered'] = {
      subscriber,
      event: { id: fact.eventId, type: fact.type },
      reason: fact.reason,
      attempts: fact.attempts,
      last_status: fact.status,
      last_outcome: fact.outcome,
      dead_lettered_at: new Date(fact.atMs).toISOString(),
      suppressed,
      events_topic: eventsTopic,
    };
    const published = notices()
      .then((publisher) =>
        publisher.publish(
          'subscriber.dead_lettered',
          data,
          noticeOptions(fact.id, { name: subscriber, tenant }),
        ),
      )
      .then(
        () => undefined,
        (err: unknown) =>
          log(
            'warn',
            'could not publish subscriber.dead_lettered; the dead letter is in the DLQ all the same',
            {
              event_id: fact.eventId,
              suppressed,
              error: err instanceof Error ? err.message : String(err),
            },
          ),
      )
      .finally(() => this.#publishing.delete(published));
    this.#publishing.add(published);
  }
}
