import {
  DEFAULT_EVENTS_TOPIC,
  type EventDataByType,
  type EventSchema,
  type KafkaSettings,
  type RegistrySettings,
} from '@hookstream/contracts';
import {
  createKafka,
  KafkaAccessError,
  KafkaSendError,
  type OutgoingRecord,
  type RecordPosition,
  RecordSender,
} from '@hookstream/kafka';
import { PRODUCER_TRACER_NAME } from '@hookstream/telemetry';
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { type Histogram, type Meter, type Tracer, trace } from '@opentelemetry/api';
import { type AvroWriter, encodeWire } from './avro-wire.ts';
import { cloudEventHeaders } from './cloud-event-headers.ts';
import { PublishError, type PublishErrorDetail } from './errors.ts';
import { type EventSchemas, openEventSchemas } from './event-schemas.ts';
import { MicroBatcher } from './micro-batcher.ts';
import { type PreparedEvent, type PublishChannel, prepareEvent } from './prepare-event.ts';
import { ProducerDedupWindows } from './producer-dedup-windows.ts';
import {
  endPublishSpan,
  failPublishSpan,
  type PublishSpan,
  publishParent,
  startPublishSpan,
} from './publish-span.ts';
import type { RegistryHttp } from './registry-http.ts';
import { isTraceparent } from './traceparent.ts';

export interface EventProducerOptions {
  /** Brokers, TLS and SASL (loadConnectionSettings().kafka). */
  readonly kafka: KafkaSettings;
  /** Confluent-compatible registry API (e.g. http://127.0.0.1:8081/apis/ccompat/v7) and its credentials. */
  readonly registry: RegistrySettings;
  /** CloudEvents `source` of what this producer publishes, e.g. `/services/shipping`. */
  readonly source: string;
  readonly topic?: string;
  /**
   * `events` (default): any type but those hookstream emits (RESERVED_TYPE). `notices`: those
   * only, for hookstream's notice path onto a notices topic (startNoticeProducer).
   */
  readonly channel?: PublishChannel;
  readonly clientId?: string;
  /** How long a publish waits for Kafka's acks=all before failing with ACK_TIMEOUT (default 5 s). */
  readonly ackTimeoutMs?: number;
  /** How long an event id is remembered for duplicate detection (default 10 min; 0 = off). */
  readonly dedupWindowMs?: number;
  /** Ids remembered in all (default 100,000), shared equally among `dedupProducers`. */
  readonly dedupMaxEntries?: number;
  /**
   * How many producers (e.g. ingress tokens) publish through this one (default 1): each gets its
   * own window of dedupMaxEntries / dedupProducers ids, so one cannot evict another's.
   */
  readonly dedupProducers?: number;
  readonly maxBatchItems?: number;
  readonly maxBatchBytes?: number;
  readonly maxInFlight?: number;
  /** Records / bytes awaiting acks at once before publishes fail with QUEUE_FULL (10000 / 64 MiB). */
  readonly maxQueuedRecords?: number;
  readonly maxQueuedBytes?: number;
  /** Event types (default: schemas/ of this repository). */
  readonly catalog?: ReadonlyMap<string, EventSchema>;
  /** Prefix for registry subjects, so tests can register the same schemas in isolation. */
  readonly subjectPrefix?: string;
  /** Records `hookstream.producer.batch.records` (records per Kafka write) when given. */
  readonly meter?: Meter;
}

export interface PublishOptions {
  readonly id?: string;
  readonly key?: string;
  /** RFC 3339; defaults to now. */
  readonly occurredAt?: string;
  /** Whose event it is: the `ce_tenant` header, `tenant` in subscribers' bodies. None when absent. */
  readonly tenant?: string;
  /**
   * The caller's W3C trace context, used when no span is active; a new trace starts when absent
   * or malformed.
   */
  readonly traceparent?: string;
}

/** How publishPrepared writes a group of events. */
export interface PublishPreparedOptions {
  /** The caller's W3C trace context, used when no span is active. */
  readonly traceparent?: string;
  /**
   * Who is publishing (e.g. a digest of the ingress token): ids are deduplicated per producer,
   * in a window of its own, so one producer's ids never answer, block or evict another's.
   * Default '' (this process).
   */
  readonly producer?: string;
}

export interface PublishResult {
  readonly eventId: string;
  readonly partition: number;
  readonly offset: string;
  /** True when the id was seen within the window: nothing new was written. */
  readonly duplicate: boolean;
}

/**
 * Publishes events to the events topic: validated against their schema, Avro-encoded in the
 * registry's wire format, with CloudEvents headers, micro-batched into acks=all writes. Every
 * promise resolves only once Kafka acknowledged that event's record.
 */
export class EventProducer {
  readonly #catalog: ReadonlyMap<string, EventSchema>;
  readonly #registry: SchemaRegistry;
  readonly #registryHttp: RegistryHttp;
  readonly #schemaIds: Map<string, number>;
  /** Schema id -> the registry client's own Avro type for it, fetched once at start. */
  readonly #writers: Map<number, AvroWriter>;
  readonly #sender: RecordSender;
  readonly #batcher: MicroBatcher<OutgoingRecord, RecordPosition>;
  readonly #dedup: ProducerDedupWindows<PublishResult>;
  readonly #source: string;
  readonly #ackTimeoutMs: number;
  readonly #topic: string;
  readonly #channel: PublishChannel;
  /** A proxy: spans are real once an SDK is registered (startTracing), no-ops before. */
  readonly #tracer: Tracer = trace.getTracer(PRODUCER_TRACER_NAME);
  readonly #batchRecords: Histogram | undefined;
  #closed = false;

  private constructor(
    options: EventProducerOptions,
    parts: EventSchemas & { readonly sender: RecordSender },
  ) {
    this.#writers = parts.writers;
    this.#registryHttp = parts.registryHttp;
    this.#catalog = parts.catalog;
    this.#registry = parts.registry;
    this.#schemaIds = parts.schemaIds;
    this.#sender = parts.sender;
    this.#source = options.source;
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 5000;
    const topic = options.topic ?? DEFAULT_EVENTS_TOPIC;
    this.#topic = topic;
    this.#channel = options.channel ?? 'events';
    this.#batchRecords = options.meter?.createHistogram('hookstream.producer.batch.records', {
      description: 'Records per write to Kafka (micro-batches of concurrent publishes)',
      unit: '{record}',
      advice: { explicitBucketBoundaries: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] },
    });
    this.#batcher = new MicroBatcher({
      flush: (records) => {
        this.#batchRecords?.record(records.length);
        return parts.sender.send(topic, records);
      },
      sizeOf: (r) => (r.value?.length ?? 0) + (r.key?.length ?? 0) + 200,
      ...(options.maxBatchItems === undefined ? {} : { maxBatchItems: options.maxBatchItems }),
      ...(options.maxBatchBytes === undefined ? {} : { maxBatchBytes: options.maxBatchBytes }),
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
      ...(options.maxQueuedRecords === undefined ? {} : { maxQueuedItems: options.maxQueuedRecords }),
      ...(options.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: options.maxQueuedBytes }),
    });
    this.#dedup = new ProducerDedupWindows({
      windowMs: options.dedupWindowMs ?? 10 * 60_000,
      maxEntries: options.dedupMaxEntries ?? 100_000,
      producers: options.dedupProducers ?? 1,
    });
  }

  /** Registers the schemas (refused if incompatible) and connects to Kafka. */
  static async start(options: EventProducerOptions): Promise<EventProducer> {
    const schemas = await openEventSchemas(options);
    let sender: RecordSender;
    try {
      sender = await connectSender(options);
    } catch (err) {
      schemas.registryHttp.close();
      throw err;
    }
    return new EventProducer(options, { ...schemas, sender });
  }

  /** Typed publish: the data type follows the event type (generated from schemas/). */
  publish<T extends keyof EventDataByType>(
    type: T,
    data: EventDataByType[T],
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    const request = {
      type,
      data,
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(options.key === undefined ? {} : { key: options.key }),
      ...(options.occurredAt === undefined ? {} : { occurred_at: options.occurredAt }),
      ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    };
    return this.publishRequest(request, options.traceparent);
  }

  /** Publishes an untrusted request body (`{ type, data, id?, key?, occurred_at?, tenant? }`). */
  async publishRequest(request: unknown, traceparent?: string): Promise<PublishResult> {
    const [result] = await this.publishPrepared(
      [this.prepare(request)],
      traceparent === undefined ? {} : { traceparent },
    );
    return result as PublishResult;
  }

  /**
   * Validates a request and fixes its id, key, time and tenant; throws PublishError, writes
   * nothing. `tenant`: the tenant of a request that names none (the caller has checked that a
   * named one is the same, e.g. the ingress for a tenant-bound token).
   */
  prepare(request: unknown, tenant?: string): PreparedEvent {
    return prepareEvent(this.#catalog, request, undefined, this.#channel, tenant);
  }

  /**
   * Writes prepared events together (one write unless the batch is too large), skipping ids
   * this producer sent within the dedup window, and resolves once every new record was
   * acknowledged. An id already sent (or repeated in `events`) with a different fingerprint
   * fails the whole call with ID_CONFLICT before anything is written.
   */
  async publishPrepared(
    events: readonly PreparedEvent[],
    options: PublishPreparedOptions = {},
  ): Promise<PublishResult[]> {
    if (this.#closed) throw new PublishError('CLOSED', 'the producer is closed');
    const { traceparent, producer = '' } = options;
    // Read before the first await: the active context is the caller's (e.g. the HTTP request span).
    const parent = publishParent(traceparent);
    const fallback = traceparent !== undefined && isTraceparent(traceparent) ? traceparent : undefined;
    const results = new Map<string, Promise<PublishResult>>();
    const fingerprints = new Map<string, string>();
    const fresh: PreparedEvent[] = [];
    const conflicts: PublishErrorDetail[] = [];
    events.forEach((event, i) => {
      const path = events.length === 1 ? 'id' : `[${i}].id`;
      const conflict = { path, message: `id '${event.id}' was used for a different event` };
      const inCall = fingerprints.get(event.id);
      if (inCall !== undefined) {
        if (inCall !== event.fingerprint) conflicts.push(conflict);
        return;
      }
      fingerprints.set(event.id, event.fingerprint);
      const seen = this.#dedup.find(producer, event.id);
      if (seen === undefined) fresh.push(event);
      else if (seen.fingerprint !== event.fingerprint) conflicts.push(conflict);
      else
        results.set(
          event.id,
          seen.result.then((r) => ({ ...r, duplicate: true })),
        );
    });
    if (conflicts.length > 0) {
      throw new PublishError(
        'ID_CONFLICT',
        `${conflicts.length === 1 ? 'an id was' : `${conflicts.length} ids were`} already used for a different event; nothing written`,
        { details: conflicts },
      );
    }
    // Claim the new ids before the first await, so a concurrent duplicate finds them.
    const claims = fresh.map((event) => {
      const claim = Promise.withResolvers<PublishResult>();
      this.#dedup.claim(producer, event.id, claim.promise, event.fingerprint);
      results.set(event.id, claim.promise);
      return claim;
    });
    const write: WriteControl = { expired: false, cancel: undefined };
    if (fresh.length > 0) {
      const spans = fresh.map((e) => startPublishSpan(this.#tracer, this.#topic, e, parent, fallback));
      // Not awaited: the claims follow the real write even past this caller's deadline, so a
      // retry of a timed-out event waits for that write instead of writing a second copy.
      void this.#write(fresh, producer, claims, spans, write);
    }
    // Later copies of an id inside the same call are duplicates of its first copy.
    // One promise per call rather than an async step per event (50 of them per batch request).
    const all = Promise.all(events.map((e) => results.get(e.id) as Promise<PublishResult>)).then(
      (settled) => {
        const firstIndex = new Map<string, number>();
        return settled.map((result, i) => {
          const id = (events[i] as PreparedEvent).id;
          const first = firstIndex.get(id) ?? i;
          firstIndex.set(id, first);
          return first === i ? result : { ...result, duplicate: true };
        });
      },
    );
    return withDeadline(all, this.#ackTimeoutMs, () => {
      write.expired = true;
      const ms = this.#ackTimeoutMs;
      // Still queued (or not yet encoded): withdrawn, so it can never land later as a surprise.
      const withdrawn =
        write.cancel === undefined ||
        write.cancel(new PublishError('ACK_TIMEOUT', `not written: no write slot within ${ms} ms`));
      return new PublishError(
        'ACK_TIMEOUT',
        withdrawn
          ? `not written: Kafka was not reached within ${ms} ms`
          : `Kafka did not acknowledge within ${ms} ms; the event may still be stored`,
      );
    });
  }

  /** Stops taking events, waits for the ones in flight, then disconnects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#batcher.idle();
    await this.#sender.disconnect();
    this.#registryHttp.close();
  }

  async #write(
    fresh: readonly PreparedEvent[],
    producer: string,
    claims: readonly PromiseWithResolvers<PublishResult>[],
    spans: readonly PublishSpan[],
    control: WriteControl,
  ): Promise<void> {
    try {
      const records = await this.#encodeAll(fresh, spans);
      if (control.expired) throw new PublishError('ACK_TIMEOUT', 'not written: the deadline passed');
      const submission = this.#batcher.submitCancellable(records);
      control.cancel = (reason) => submission.cancel(reason);
      const positions = await submission.result;
      fresh.forEach((event, i) => {
        const p = positions[i] as RecordPosition;
        endPublishSpan((spans[i] as PublishSpan).span, p);
        const result = { eventId: event.id, partition: p.partition, offset: p.offset, duplicate: false };
        this.#dedup.settle(producer, event.id, result);
        claims[i]?.resolve(result);
      });
    } catch (caught) {
      const err =
        caught instanceof KafkaSendError
          ? new PublishError(caught.code, caught.message, { cause: caught })
          : caught;
      fresh.forEach((event, i) => {
        failPublishSpan((spans[i] as PublishSpan).span, err);
        this.#dedup.forget(producer, event.id);
        // Handled here too: a claim nobody else awaits must not be an unhandled rejection.
        claims[i]?.promise.catch(() => undefined);
        claims[i]?.reject(err);
      });
    }
  }

  /**
   * Avro in the registry's wire format, synchronously with the registry client's own type (the
   * bytes registry.encode writes, without its promise and copies per event). Any failure goes
   * through registry.encode, so its error is the one reported.
   */
  async #encodeAll(
    fresh: readonly PreparedEvent[],
    spans: readonly PublishSpan[],
  ): Promise<OutgoingRecord[]> {
    const records: OutgoingRecord[] = [];
    for (let i = 0; i < fresh.length; i++) {
      const event = fresh[i] as PreparedEvent;
      const id = this.#schemaIds.get(event.type);
      const writer = id === undefined ? undefined : this.#writers.get(id);
      let value: Buffer | undefined;
      if (id !== undefined && writer !== undefined) {
        try {
          value = encodeWire(writer, id, event.data);
        } catch {
          value = undefined;
        }
      }
      const traceparent = (spans[i] as PublishSpan).traceparent;
      records.push(
        value === undefined
          ? await this.#encode(event, traceparent)
          : { key: event.key, value, headers: cloudEventHeaders(event, this.#source, traceparent) },
      );
    }
    return records;
  }

  async #encode(event: PreparedEvent, traceparent: string): Promise<OutgoingRecord> {
    const id = this.#schemaIds.get(event.type);
    if (id === undefined) throw new PublishError('UNKNOWN_TYPE', `no registered schema for ${event.type}`);
    let value: Buffer;
    try {
      value = await this.#registry.encode(id, event.data);
    } catch (err) {
      // The zod validator is derived from the same schema, so this means the two disagree.
      throw new PublishError('INVALID_DATA', `data does not encode as ${event.type}: ${String(err)}`, {
        cause: err,
      });
    }
    return { key: event.key, value, headers: cloudEventHeaders(event, this.#source, traceparent) };
  }
}

/** What a caller's deadline needs to know about its write. */
interface WriteControl {
  expired: boolean;
  /** Set once the records are submitted; withdraws them if no write took them yet. */
  cancel: ((reason: unknown) => boolean) | undefined;
}

/** Rejects with onExpire's error after ms unless work settles first. */
async function withDeadline<T>(work: Promise<T>, ms: number, onExpire: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onExpire()), ms);
  });
  // Once the deadline won, the work's own failure is nobody's to handle.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function connectSender(options: EventProducerOptions): Promise<RecordSender> {
  const kafka = createKafka({
    ...options.kafka,
    clientId: options.clientId ?? 'hookstream-producer',
    requestTimeoutMs: options.ackTimeoutMs ?? 5000,
    quiet: true,
  });
  const sender = new RecordSender(kafka, { ackTimeoutMs: options.ackTimeoutMs ?? 5000 });
  try {
    await sender.connect();
  } catch (err) {
    if (err instanceof KafkaAccessError)
      throw new PublishError('KAFKA_NOT_AUTHORIZED', err.message, { cause: err });
    throw new PublishError('KAFKA_UNAVAILABLE', `cannot connect to Kafka: ${String(err)}`, { cause: err });
  }
  return sender;
}
