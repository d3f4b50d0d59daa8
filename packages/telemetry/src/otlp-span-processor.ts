import { context, diag, ROOT_CONTEXT, TraceFlags } from '@opentelemetry/api';
import { globalErrorHandler, type InstrumentationScope } from '@opentelemetry/core';
import type { IOtlpExportDelegate } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { OtlpProtobufEncoder } from './otlp-protobuf.ts';
import { ProtoWriter } from './proto-writer.ts';

export interface OtlpSpanProcessorOptions {
  /** The OTLP/HTTP traces URL. */
  readonly url: string;
  /** At most this long between a span's end and its export. */
  readonly scheduledDelayMillis: number;
  /** Spans held (encoded, or in an export not yet answered) beyond which new ones are dropped. */
  readonly maxQueueSize: number;
  /** Spans per export request. */
  readonly maxExportBatchSize: number;
  /** One export's time limit, its retries included; default OTEL_EXPORTER_OTLP_TIMEOUT or 10 s. */
  readonly timeoutMillis?: number;
  /**
   * Encoded bytes held while the collector does not answer (not started yet, restarting), sent
   * once it does; spans past the bound are dropped and counted. Default HELD_BYTES_DEFAULT.
   */
  readonly maxHeldBytes?: number;
  /** Told when the collector stops answering and when it answers again, for the process's log. */
  readonly onCollectorState?: (state: CollectorState) => void;
}

/** What the processor says of the collector: down (spans held) or back (held spans sent). */
export type CollectorState =
  | { readonly state: 'unreachable'; readonly error: string; readonly maxHeldBytes: number }
  | { readonly state: 'answering'; readonly sentHeldSpans: number; readonly droppedSpans: number };

/** Counts for metrics: spans held for an unreachable collector, spans dropped since start. */
export interface SpanExportStats {
  readonly heldSpans: number;
  readonly heldBytes: number;
  readonly droppedSpans: number;
}

/** 16 MiB: about 40,000 delivery spans, a few minutes of a busy pusher without its collector. */
export const HELD_BYTES_DEFAULT = 16 * 1024 * 1024;

/** How long after a failed export of held spans the next try starts. */
const RETRY_HELD_MS = 2000;

/** One export request: its protobuf bytes and how many spans it carries. */
interface EncodedBatch {
  readonly bytes: Uint8Array;
  readonly spans: number;
}

/** The spans of one resource and instrumentation scope in the batch being built. */
interface Group {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly writer: ProtoWriter;
  count: number;
}

/**
 * A batching span processor for OTLP/HTTP protobuf, in place of the SDK's BatchSpanProcessor +
 * OTLPTraceExporter pair, with the same batch settings and the SDK's own HTTP transport
 * (headers, compression, timeout and retries from the OTEL_EXPORTER_OTLP_* variables). It
 * differs in when the work happens: each span is encoded when it ends (otlp-protobuf.ts, the
 * same bytes as the SDK's serializer), so a batch waiting for export is a buffer, not a
 * thousand live span objects, and sending it is a copy. And in what happens when the collector
 * does not answer (not started yet, restarting): the SDK drops the batch after its retries;
 * this one holds the encoded requests, up to maxHeldBytes, and sends them once it answers.
 */
export class OtlpProtobufSpanProcessor implements SpanProcessor {
  readonly #options: OtlpSpanProcessorOptions;
  readonly #delegate: IOtlpExportDelegate<EncodedBatch>;
  readonly #encoder = new OtlpProtobufEncoder();
  /** Per resource, per scope; a process has one resource and a handful of tracers. */
  readonly #groups = new Map<Resource, Map<InstrumentationScope, Group>>();
  /** Groups with spans in the current batch, in the order their first span ended. */
  #active: Group[] = [];
  /** The group of the previous span: consecutive spans mostly share one. */
  #last: Group | undefined;
  #batched = 0;
  #inFlight = 0;
  #dropped = 0;
  #droppedTotal = 0;
  #timer: NodeJS.Timeout | undefined;
  #shutDown = false;
  /** Requests the collector did not take, oldest first; non-empty means it is thought down. */
  readonly #held: EncodedBatch[] = [];
  #heldBytes = 0;
  #heldSpans = 0;
  /** Held spans sent and spans dropped in the current outage, for the line said when it ends. */
  #outage = { sent: 0, dropped: 0 };
  #retryTimer: NodeJS.Timeout | undefined;
  #retrying: Promise<void> | undefined;

  constructor(options: OtlpSpanProcessorOptions) {
    this.#options = options;
    this.#delegate = createOtlpHttpExportDelegate<EncodedBatch, unknown>(
      convertLegacyHttpOptions(
        {
          url: options.url,
          ...(options.timeoutMillis === undefined ? {} : { timeoutMillis: options.timeoutMillis }),
        },
        'TRACES',
        'v1/traces',
        {
          'Content-Type': 'application/x-protobuf',
        },
      ),
      {
        serializeRequest: (batch) => batch.bytes,
        deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
      },
      'otlp_http_span_exporter',
      { name: 'span', countItems: (batch) => batch.spans },
      undefined,
    );
  }

  onStart(): void {}

  stats(): SpanExportStats {
    return { heldSpans: this.#heldSpans, heldBytes: this.#heldBytes, droppedSpans: this.#droppedTotal };
  }

  onEnd(span: ReadableSpan): void {
    if (this.#shutDown || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#batched + this.#inFlight >= this.#options.maxQueueSize) {
      this.#dropped++;
      this.#droppedTotal++;
      return;
    }
    const group = this.#group(span.resource, span.instrumentationScope);
    const before = group.writer.pos;
    try {
      this.#encoder.span(group.writer, span);
    } catch (error) {
      // A span that cannot be encoded is dropped whole; it never fails the code ending it.
      group.writer.pos = before;
      globalErrorHandler(error as Error);
      return;
    }
    if (group.count === 0) this.#active.push(group);
    group.count++;
    this.#batched++;
    if (this.#batched >= this.#options.maxExportBatchSize) this.#exportSoon();
    else this.#timer ??= setTimeout(() => this.#exportSoon(), this.#options.scheduledDelayMillis).unref();
  }

  /** Starts an export from a span's end or the timer, where nothing awaits it. */
  #exportSoon(): void {
    this.#export().catch((error: unknown) => globalErrorHandler(error as Error));
  }

  /** Sends what is batched, and what is held if the collector answers now; never waits longer. */
  async forceFlush(): Promise<void> {
    await this.#export();
    await this.#delegate.forceFlush();
    await this.#retryHeld();
  }

  async shutdown(): Promise<void> {
    if (this.#shutDown) return;
    await this.forceFlush();
    this.#shutDown = true;
    clearTimeout(this.#retryTimer);
    if (this.#heldSpans > 0) {
      diag.warn(
        `Dropped ${this.#heldSpans} spans held for an OTLP collector that did not answer by shutdown`,
      );
      this.#droppedTotal += this.#heldSpans;
      this.#held.length = 0;
      this.#heldBytes = 0;
      this.#heldSpans = 0;
    }
    await this.#delegate.shutdown();
  }

  #group(resource: Resource, scope: InstrumentationScope): Group {
    const last = this.#last;
    if (last !== undefined && last.resource === resource && last.scope === scope) return last;
    let scopes = this.#groups.get(resource);
    if (!scopes) {
      scopes = new Map();
      this.#groups.set(resource, scopes);
    }
    let group = scopes.get(scope);
    if (!group) {
      group = { resource, scope, writer: new ProtoWriter(), count: 0 };
      scopes.set(scope, group);
    }
    this.#last = group;
    return group;
  }

  /** Sends the current batch; resolves once it is handed to the transport. */
  async #export(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#dropped > 0) {
      diag.warn(`Dropped ${this.#dropped} spans because maxQueueSize reached`);
      this.#dropped = 0;
    }
    if (this.#batched === 0) return;
    // Take the encoded spans out of the reused group buffers before anything async happens.
    const parts = this.#active.map((g) => ({
      resource: g.resource,
      scope: g.scope,
      spans: g.writer.buffer.slice(0, g.writer.pos),
    }));
    for (const g of this.#active) {
      g.writer.reset();
      g.count = 0;
    }
    const spans = this.#batched;
    this.#active = [];
    this.#batched = 0;
    this.#inFlight += spans;
    // A resource can still be detecting attributes (host id, …); its spans wait for them, as
    // with the SDK's BatchSpanProcessor.
    const pending = parts.filter((p) => p.resource.asyncAttributesPending);
    if (pending.length > 0) await Promise.all(pending.map((p) => p.resource.waitForAsyncAttributes?.()));
    const batch = { bytes: this.#encoder.request(parts), spans };
    if (this.#held.length > 0) {
      // The collector is thought down: wait behind the held requests, in order.
      this.#inFlight -= spans;
      this.#hold(batch);
      return;
    }
    this.#delegate.export(batch, (result) => {
      this.#inFlight -= spans;
      if (!result.error) return;
      if (!collectorMayTakeItLater(result.error)) {
        this.#droppedTotal += spans;
        globalErrorHandler(result.error);
        return;
      }
      if (this.#held.length === 0) {
        this.#outage = { sent: 0, dropped: 0 };
        this.#tell({ state: 'unreachable', error: result.error.message, maxHeldBytes: this.#maxHeldBytes });
      }
      this.#hold(batch);
    });
  }

  get #maxHeldBytes(): number {
    return this.#options.maxHeldBytes ?? HELD_BYTES_DEFAULT;
  }

  /** Keeps a request the collector did not take, within the bound; retries the oldest soon. */
  #hold(batch: EncodedBatch): void {
    if (this.#shutDown) return;
    if (this.#heldBytes + batch.bytes.byteLength > this.#maxHeldBytes) {
      this.#droppedTotal += batch.spans;
      this.#outage.dropped += batch.spans;
    } else {
      this.#held.push(batch);
      this.#heldBytes += batch.bytes.byteLength;
      this.#heldSpans += batch.spans;
    }
    this.#retryTimer ??= setTimeout(() => this.#retryLater(), RETRY_HELD_MS).unref();
  }

  /** Sends the held requests oldest first while the collector takes them; one run at a time. */
  #retryHeld(): Promise<void> {
    this.#retrying ??= (async () => {
      while (this.#held.length > 0) {
        const batch = this.#held[0] as EncodedBatch;
        const error = await new Promise<Error | undefined>((resolve) =>
          this.#delegate.export(batch, (result) => resolve(result.error)),
        );
        if (error && collectorMayTakeItLater(error)) {
          if (!this.#shutDown)
            this.#retryTimer ??= setTimeout(() => this.#retryLater(), RETRY_HELD_MS).unref();
          return;
        }
        this.#held.shift();
        this.#heldBytes -= batch.bytes.byteLength;
        this.#heldSpans -= batch.spans;
        if (error) {
          this.#droppedTotal += batch.spans;
          this.#outage.dropped += batch.spans;
          globalErrorHandler(error);
        } else this.#outage.sent += batch.spans;
        if (this.#held.length === 0) {
          const { sent, dropped } = this.#outage;
          this.#options.onCollectorState?.({
            state: 'answering',
            sentHeldSpans: sent,
            droppedSpans: dropped,
          });
        }
      }
    })().finally(() => {
      this.#retrying = undefined;
    });
    return this.#retrying;
  }

  /** Outside any span: the news is the process's, not the trace's whose export happened to fail. */
  #tell(state: CollectorState): void {
    const listener = this.#options.onCollectorState;
    if (listener) context.with(ROOT_CONTEXT, () => listener(state));
  }

  #retryLater(): void {
    this.#retryTimer = undefined;
    this.#retryHeld().catch((error: unknown) => globalErrorHandler(error as Error));
  }
}

/**
 * True unless the collector answered and refused the request (a 4xx other than 408 and 429):
 * a refused connection, a timeout, a 5xx or a 429 may all pass once it is up or less busy.
 */
function collectorMayTakeItLater(error: Error): boolean {
  const status = (error as { code?: unknown }).code;
  if (typeof status !== 'number') return true;
  return status === 408 || status === 429 || status >= 500;
}
