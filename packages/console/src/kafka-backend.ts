import { ATTEMPT_LOG_TOPIC, AttemptLogEntry, loadEventCatalog } from '@hookstream/contracts';
import { type KafkaConnection, KafkaReadError, readTopic } from '@hookstream/kafka';
import { catalogueFor, replayWithAudit } from '@hookstream/management';
import type { DeadLetter, LedgerAnswer, LedgerQuery, ReplayRequest, ReplaySummary } from '@hookstream/replay';
import {
  AuditTrail,
  changeSubscriberState,
  knownSubscriber,
  type NoticePublisher,
  OPERATOR,
  SubscriberCatalog,
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
 * The DLQ and ledger tools the CLI's `dlq` and `ledger` run (the replay service's functions),
 * handed in by the command: a package never imports a service.
 */
export interface ReplayTools {
  readDeadLetters(kafka: KafkaConnection, subscriber: string): Promise<DeadLetter[]>;
  replayDeadLetters(kafka: KafkaConnection, request: ReplayRequest): Promise<ReplaySummary>;
  queryLedger(kafka: KafkaConnection, query: LedgerQuery): Promise<LedgerAnswer>;
  findTraceIds(jaegerUrl: string, eventId: string): Promise<string[]>;
}

export interface KafkaBackendContext {
  readonly kafka: KafkaConnection;
  readonly eventsTopic: string;
  readonly jaegerUrl: string;
  readonly tools: ReplayTools;
  /** For subscriber.enabled when a disabled subscriber is resumed (EventProducer in production). */
  readonly openPublisher: () => Promise<NoticePublisher & { close(): Promise<void> }>;
  /** How far back a subscriber's page reads the attempt log. */
  readonly attemptWindowMs?: number;
  readonly now?: () => number;
}

/** Attempts shown on a subscriber's page, newest first. */
const MAX_ATTEMPTS = 50;
/** Jaeger is an aid on the event page: it must not hold the page when it is slow or away. */
const TRACE_TIMEOUT_MS = 3000;

/** The console's reads and actions against Kafka and Jaeger, the same functions the CLI runs. */
export class KafkaConsoleBackend implements ConsoleBackend {
  readonly eventsTopic: string;
  readonly jaegerUrl: string;
  readonly #context: KafkaBackendContext;
  readonly #catalog: SubscriberCatalog;
  readonly #audit: AuditTrail;
  readonly #now: () => number;

  constructor(context: KafkaBackendContext) {
    this.#context = context;
    this.eventsTopic = context.eventsTopic;
    this.jaegerUrl = context.jaegerUrl;
    this.#catalog = new SubscriberCatalog(context.kafka);
    this.#audit = new AuditTrail(context.kafka);
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
  }) {
    // Whoever clicks signed in with a console token: the trail names the token (console-token-<n>),
    // not the OS user the console runs as, who is the same for every operator.
    return changeSubscriberState(
      {
        catalog: this.#catalog,
        openPublisher: this.#context.openPublisher,
        audit: { trail: this.#audit, actor: { kind: 'token', tokenId: request.by } },
      },
      { ...request, eventsTopic: this.eventsTopic, now: new Date(this.#now()) },
    );
  }

  deadLetters(name: string): Promise<DeadLetter[]> {
    return this.#context.tools.readDeadLetters(this.#context.kafka, name);
  }

  /** A replay, then its audit record naming the console token (the management layer's replayWithAudit). */
  replay(request: ReplayRequest): Promise<ReplaySummary> {
    return replayWithAudit(
      {
        replayDeadLetters: (r) => this.#context.tools.replayDeadLetters(this.#context.kafka, r),
        catalog: this.#catalog,
        audit: this.#audit,
        now: () => new Date(this.#now()),
      },
      { scope: OPERATOR, id: request.operator },
      request,
    );
  }

  ledger(eventId: string): Promise<LedgerAnswer> {
    return this.#context.tools.queryLedger(this.#context.kafka, { eventId, eventsTopic: this.eventsTopic });
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

  async catalogue(): Promise<CatalogueEntry[]> {
    const types = [...loadEventCatalog().values()].map((t) => ({
      type: t.type,
      subject: t.subject,
      schema: t.avro,
    }));
    return catalogueFor({ scope: OPERATOR, id: 'console' }, types, await this.#catalog.read());
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
    for (const r of records) {
      if (r.value === null) continue;
      const parsed = AttemptLogEntry.safeParse(safeJson(r.value));
      if (parsed.success && parsed.data.subscriber === name) entries.push(parsed.data);
    }
    return entries.sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, MAX_ATTEMPTS);
  }
}

function safeJson(value: Buffer): unknown {
  try {
    return JSON.parse(value.toString('utf8'));
  } catch {
    return null;
  }
}
