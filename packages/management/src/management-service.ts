import type { MessageList, MessagePayload, ResendAnswer, SendExampleAnswer } from '@hookstream/api-schemas';
import type { AuditRecord } from '@hookstream/contracts';
import type { DlqSelection, ReplayRequest, ReplaySummary } from '@hookstream/replay';
import type { DeleteResult, RewindResult } from '@hookstream/subscribers';
import type { Caller } from './caller.ts';
import { catalogueFor, type EventTypeEntry } from './catalogue.ts';
import {
  auditTrailFor,
  type DeadLetterItem,
  eventLedger,
  type LedgerView,
  listDeadLetters,
  replayWithAudit,
} from './dead-letter-ops.ts';
import { managementErrorOf } from './error-mapping.ts';
import { ManagementError } from './errors.ts';
import type { ManagementPorts, PullSelection } from './management-ports.ts';
import { resendMessage, sendExample } from './message-actions.ts';
import type { MessageDetail } from './message-index.ts';
import { messagePayload } from './message-payload.ts';
import { getMessage, listMessages, type MessageListAsk, type MessageReadOptions } from './message-reads.ts';
import type { Page } from './pagination.ts';
import { ackEvents, type LeaseGranted, type LeaseRequest, leaseEvents, nackEvents } from './pull-ops.ts';
import { type ReplayJob, ReplayJobs } from './replay-jobs.ts';
import { type RewindAsk, rewind } from './rewind-op.ts';
import {
  getSubscriber,
  listSubscribers,
  type SubscriberItem,
  type SubscriberResource,
} from './subscriber-reads.ts';
import {
  changeState,
  type PutResult,
  putSubscriber,
  type RotatedSecret,
  removeSubscriber,
  revealSecret,
  rotateSecret,
  type StateResult,
} from './subscriber-writes.ts';
import { visibleRecord, visibleTo } from './tenant-rules.ts';

/**
 * The management operations for a caller, over one set of ports: every failure leaves as a
 * ManagementError (code, status, canRetry), whatever threw it. Replay jobs live in this process.
 */
export class ManagementService {
  readonly #ports: ManagementPorts;
  readonly #jobs: ReplayJobs;

  constructor(ports: ManagementPorts) {
    this.#ports = ports;
    this.#jobs = new ReplayJobs({ replay: (r) => ports.replayDeadLetters(r) }, 'api');
  }

  listSubscribers(
    caller: Caller,
    options: { readonly limit: number; readonly cursor?: string | undefined },
  ): Promise<Page<SubscriberItem> & { readonly retentionHeadroomError: string | null }> {
    return mapped(listSubscribers(this.#ports, caller, options));
  }

  getSubscriber(caller: Caller, name: string): Promise<SubscriberResource> {
    return mapped(getSubscriber(this.#ports, caller, name));
  }

  putSubscriber(caller: Caller, name: string, body: unknown, ifMatch?: string): Promise<PutResult> {
    return mapped(putSubscriber(this.#ports, caller, name, body, { ifMatch }));
  }

  deleteSubscriber(
    caller: Caller,
    name: string,
    options: { readonly purge: boolean; readonly ifMatch?: string | undefined },
  ): Promise<DeleteResult> {
    return mapped(removeSubscriber(this.#ports, caller, name, options));
  }

  changeState(
    caller: Caller,
    name: string,
    request: { readonly action: 'pause' | 'resume'; readonly reason?: string | undefined },
  ): Promise<StateResult> {
    return mapped(changeState(this.#ports, caller, name, request));
  }

  /** Delivers a subscriber's events again from a point of the events topic (or counts them: dryRun). */
  rewind(caller: Caller, name: string, ask: RewindAsk): Promise<RewindResult> {
    return mapped(rewind(this.#ports, caller, name, ask));
  }

  /** A lease of a pull subscriber's events (docs/api.md, "Pull"). */
  leaseEvents(caller: Caller, name: string, ask: LeaseRequest): Promise<LeaseGranted> {
    return mapped(leaseEvents(this.#ports, caller, name, ask));
  }

  ackEvents(
    caller: Caller,
    name: string,
    leaseId: string,
    selection: PullSelection,
  ): Promise<{ acked: number }> {
    return mapped(ackEvents(this.#ports, caller, name, leaseId, selection));
  }

  nackEvents(
    caller: Caller,
    name: string,
    leaseId: string,
    selection: PullSelection,
    delayMs: number | null,
  ): Promise<{ nacked: number }> {
    return mapped(nackEvents(this.#ports, caller, name, leaseId, selection, delayMs));
  }

  /** The managed secret in clear, with the previous ones still signing. */
  revealSecret(caller: Caller, name: string): Promise<RotatedSecret> {
    return mapped(revealSecret(this.#ports, caller, name));
  }

  rotateSecret(caller: Caller, name: string, graceMs?: number): Promise<RotatedSecret> {
    return mapped(rotateSecret(this.#ports, caller, name, { graceMs }));
  }

  deadLetters(caller: Caller, name: string, selection: DlqSelection): Promise<DeadLetterItem[]> {
    return mapped(listDeadLetters(this.#ports, caller, name, selection));
  }

  /** Starts a replay of the caller's subscriber's dead letters; the job reports its progress. */
  replay(
    caller: Caller,
    name: string,
    request: { readonly selection: DlqSelection; readonly dryRun: boolean; readonly again: boolean },
  ): Promise<ReplayJob> {
    return mapped(
      (async () => {
        visibleRecord(await this.#ports.catalog.read(), name, caller);
        return this.#jobs.start({ ...request, subscriber: name, operator: caller.id }, (r) =>
          replayWithAudit(this.#ports, caller, r),
        );
      })(),
    );
  }

  /**
   * A replay run to its end here, with its audit record: for callers that keep their own jobs and
   * show the progress themselves (the console).
   */
  replayNow(caller: Caller, request: ReplayRequest): Promise<ReplaySummary> {
    return mapped(
      (async () => {
        visibleRecord(await this.#ports.catalog.read(), request.subscriber, caller);
        return replayWithAudit(this.#ports, caller, request);
      })(),
    );
  }

  /**
   * Recovers everything dead-lettered for an endpoint since a time: the dead-letter replay (a job)
   * of every reason at or after `since`, letters replayed before left out (not `again`). The same
   * job as `POST …/dead-letters/replay` with `{ "since" }`, which is this action over the API.
   */
  recover(caller: Caller, ask: { readonly subscriber: string; readonly since: Date }): Promise<ReplayJob> {
    const selection: DlqSelection = {
      eventIds: [],
      reasons: [],
      statuses: [],
      sinceMs: ask.since.getTime(),
    };
    return this.replay(caller, ask.subscriber, { selection, dryRun: false, again: false });
  }

  /** Sends one event again to one endpoint, with the same id and a fresh attempt budget. */
  resendMessage(
    caller: Caller,
    ask: { readonly eventId: string; readonly subscriber: string },
  ): Promise<ResendAnswer> {
    return mapped(resendMessage(this.#ports, caller, ask));
  }

  /** Sends an example event of a type to one endpoint only; the answer names its new id. */
  sendExample(
    caller: Caller,
    ask: { readonly subscriber: string; readonly type: string },
  ): Promise<SendExampleAnswer> {
    return mapped(sendExample(this.#ports, caller, ask));
  }

  /** A page of one tenant's messages, newest first (the operator names the tenant). */
  listMessages(caller: Caller, query: MessageListAsk): Promise<MessageList> {
    return mapped(listMessages(this.#ports, caller, query));
  }

  /** As much of a message's data as the operator's payload mode shows (none, digest, full). */
  messagePayload(caller: Caller, eventId: string, options: MessageReadOptions = {}): Promise<MessagePayload> {
    return mapped(messagePayload(this.#ports, caller, eventId, options));
  }

  /** One message with every attempt of the caller's endpoints. */
  getMessage(caller: Caller, eventId: string, options: MessageReadOptions = {}): Promise<MessageDetail> {
    return mapped(getMessage(this.#ports, caller, eventId, options));
  }

  /** A job of one of the caller's subscribers; another's is not found. */
  job(caller: Caller, id: string): Promise<ReplayJob> {
    return mapped(
      (async () => {
        const job = this.#jobs.get(id);
        const record =
          job === undefined ? undefined : (await this.#ports.catalog.read()).subscribers.get(job.subscriber);
        const mine = caller.scope.kind === 'operator' || (record !== undefined && visibleTo(caller, record));
        if (job === undefined || !mine) throw new ManagementError('not_found', `no job "${id}"`);
        return job;
      })(),
    );
  }

  ledger(caller: Caller, eventId: string): Promise<LedgerView> {
    return mapped(eventLedger(this.#ports, caller, eventId));
  }

  eventTypes(caller: Caller): Promise<EventTypeEntry[]> {
    return mapped(
      (async () => catalogueFor(caller, this.#ports.eventTypes(), await this.#ports.catalog.read()))(),
    );
  }

  audit(
    caller: Caller,
    options: { readonly subscriber?: string | undefined; readonly limit: number },
  ): Promise<AuditRecord[]> {
    return mapped(auditTrailFor(this.#ports, caller, options));
  }

  /** Resolves when no replay job is running (a clean shutdown). */
  settled(): Promise<void> {
    return this.#jobs.settled();
  }
}

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw managementErrorOf(err);
  }
}
