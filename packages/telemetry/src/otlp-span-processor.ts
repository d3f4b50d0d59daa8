import { diag, TraceFlags } from '@opentelemetry/api';
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
}

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
 * thousand live span objects, and sending it is a copy.
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
  #timer: NodeJS.Timeout | undefined;
  #shutDown = false;

  constructor(options: OtlpSpanProcessorOptions) {
    this.#options = options;
    this.#delegate = createOtlpHttpExportDelegate<EncodedBatch, unknown>(
      convertLegacyHttpOptions({ url: options.url }, 'TRACES', 'v1/traces', {
        'Content-Type': 'application/x-protobuf',
      }),
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

  onEnd(span: ReadableSpan): void {
    if (this.#shutDown || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#batched + this.#inFlight >= this.#options.maxQueueSize) {
      this.#dropped++;
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

  async forceFlush(): Promise<void> {
    await this.#export();
    await this.#delegate.forceFlush();
  }

  async shutdown(): Promise<void> {
    if (this.#shutDown) return;
    await this.forceFlush();
    this.#shutDown = true;
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
    const bytes = this.#encoder.request(parts);
    this.#delegate.export({ bytes, spans }, (result) => {
      this.#inFlight -= spans;
      if (result.error) globalErrorHandler(result.error);
    });
  }
}
