import { ATTEMPT_LOG_TOPIC, type AttemptLogEntry, attemptEntriesOf } from '@hookstream/contracts';
import { type KafkaConnection, KafkaReadError, readTopic } from '@hookstream/kafka';
import {
  type Caller,
  type LedgerView,
  ManagementError,
  type ManagementService,
  type StateResult,
} from '@hookstream/management';
import type { DeadLetter, ReplayRequest, ReplaySummary } from '@hookstream/replay';
import {
  type CatalogSnapshot,
  knownSubscriber,
  OPERATOR,
  subscriberDetail,
  subscriberOverviews,
} from '@hookstream/subscribers';
import {
  ATTEMPT_LOG_SCAN_PER_PARTITION,
  type CatalogueEntry,
  type ConsoleBackend,
  type SubscriberView,
} from './console-backend.ts';

/**
 * The DLQ tools the CLI's `dlq` runs (the replay service's functions) and Jaeger's search, handed
 * in by the command: a package never imports a service.
 */
export interface ReplayTools {
  readDeadLetters(kafka: KafkaConnection, subscriber: string): Promise<DeadLetter[]>;
  findTraceIds(jaegerUrl: string, eventId: string): Promise<string[]>;
}

export interface KafkaBackendContext {
  readonly kafka: KafkaConnection;
  /**
   * The management layer the API runs, on the same Kafka: every change (pause, resume, replay)
   * and the ledger and catalogue go through it, as the signed-in token.
   */
  readonly service: ManagementService;
  /** The catalog as the service reads it (a LiveCatalog: followed, not read whole per page). */
  readonly catalog: { read(): Promise<CatalogSnapshot> };
  readonly eventsTopic: string;
  readonly jaegerUrl: string;
  readonly tools: ReplayTools;
  /** How far back a subscriber's page reads the attempt log. */
  readonly attemptWindowMs?: number;
  readonly now?: () => number;
}

/** Attempts shown on a subscriber's page, newest first. */
const MAX_ATTEMPTS = 50;
/** Jaeger is an aid on the event page: it must not hold the page when it is slow or away. */
const TRACE_TIMEOUT_MS = 3000;

/**
 * The console's reads and actions against Kafka and Jaeger: its changes through the management
 * service (as the API's), its pages from the same functions the CLI's `list` and `show` run.
 */
export class KafkaConsoleBackend implements ConsoleBackend {
  readonly eventsTopic: string;
  readonly jaegerUrl: string;
  readonly #context: KafkaBackendContext;
  readonly #catalog: { read(): Promise<CatalogSnapshot> };
  readonly #now: () => number;

  constructor(context: KafkaBackendContext) {
    this.#context = context;
    this.eventsTopic = context.eventsTopic;
    this.jaegerUrl = context.jaegerUrl;
    this.#catalog = context.catalog;
    this.#now = context.now ?? Date.now;
  }

  async overview() {
    const snapshot = await this.#catalog.read();
    const subscribers = await subscriberOverviews(this.#context.kafka, snapshot.subscribers.values(), {
      eventsTopic: this.eventsTopic,
      nowMs: this.#now(),
    });
    return { subscribers, problems: snapshot.problems };
  }

  async subscriber(name: string): Promise<SubscriberView> {
    const record = knownSubscriber(await this.#catalog.read(), name);
    const attemptsSinceMs = this.#now() - (this.#context.attemptWindowMs ?? 3_600_000);
    const [detail, attempts] = await Promise.all([
      subscriberDetail(this.#context.kafka, record, this.eventsTopic),
      this.#attempts(name, attemptsSinceMs),
    ]);
    return { record, ...detail, attempts, attemptsSinceMs };
  }

  changeState(request: {
    readonly action: 'pause' | 'resume';
    readonly name: string;
    readonly by: string;
    readonly reason?: string;
  }): Promise<StateResult> {
    // Whoever clicks signed in with a console token: the trail names the token (console-token-<n>),
    // not the OS user the console runs as, who is the same for every operator.
    return operatorFacing(
      this.#context.service.changeState(operatorToken(request.by), request.name, {
        action: request.action,
        reason: request.reason,
      }),
    );
  }

  deadLetters(name: string): Promise<DeadLetter[]> {
    return this.#context.tools.readDeadLetters(this.#context.kafka, name);
  }

  /** A replay, then its audit record naming the console token. */
  replay(request: ReplayRequest): Promise<ReplaySummary> {
    return operatorFacing(this.#context.service.replayNow(operatorToken(request.operator), request));
  }

  ledger(eventId: string): Promise<LedgerView> {
    return operatorFacing(this.#context.service.ledger(CONSOLE, eventId));
  }

  async traceIds(eventId: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string[]>((resolve) => {
      timer = setTimeout(() => resolve([]), TRACE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([
        this.#context.tools.findTraceIds(this.jaegerUrl, eventId).catch(() => []),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  catalogue(): Promise<CatalogueEntry[]> {
    return operatorFacing(this.#context.service.eventTypes(CONSOLE));
  }

  /** The subscriber's entries in the attempt log since `sinceMs`, newest first. */
  async #attempts(name: string, sinceMs: number): Promise<AttemptLogEntry[]> {
    let records: Awaited<ReturnType<typeof readTopic>>;
    try {
      records = await readTopic(this.#context.kafka, {
        topic: ATTEMPT_LOG_TOPIC,
        from: { timestampMs: sinceMs },
        lastPerPartition: ATTEMPT_LOG_SCAN_PER_PARTITION,
        purpose: 'console-attempts',
      });
    } catch (err) {
      if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return [];
      throw err;
    }
    const entries: AttemptLogEntry[] = [];
    for (const r of records)
      for (const entry of attemptEntriesOf(r.value).entries)
        if (entry.subscriber === name) entries.push(entry);
    return entries.sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, MAX_ATTEMPTS);
  }
}

/** The console reads as the operator: every token of CONSOLE_TOKENS may do everything. */
const CONSOLE: Caller = { scope: OPERATOR, id: 'console' };

/**
 * The service hides an unexpected failure's message from API callers (`internal`); the console's
 * are operators, who need it: the cause goes on as it is.
 */
async function operatorFacing<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw err instanceof ManagementError && err.code === 'internal' && err.cause !== undefined
      ? err.cause
      : err;
  }
}

function operatorToken(tokenId: string): Caller {
  return { scope: OPERATOR, id: tokenId };
}
