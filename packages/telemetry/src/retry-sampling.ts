import {
  type Attributes,
  type Context,
  type Link,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  SpanKind,
} from '@opentelemetry/api';
import { ATTR } from './semconv.ts';

const SAMPLED: SamplingResult = { decision: SamplingDecision.RECORD_AND_SAMPLED };

/**
 * Whether a span is a delivery's retry: the process span of a record read from a retry tier (a
 * retry's attempt 2 or later, or a dead letter sent again by a replay, a resend or an example).
 * Known when it starts, from its kind and the attribute it starts with; the send to a tier
 * carries the tier too, but is a producer span, decided with the attempt it belongs to.
 */
export function isRetryAttempt(kind: SpanKind, attributes: Attributes): boolean {
  return kind === SpanKind.CONSUMER && attributes[ATTR.retryTier] !== undefined;
}

/**
 * Whether a span is the write of a dead letter: the PRODUCER span of a send to the DLQ, which
 * starts with the dead letter's reason (ProcessSpan.send). A dead letter can be decided on a
 * first attempt that was not sampled (a 4xx the policy does not retry, a poison record): this
 * span is then the record's only trace, a child of its unsampled process span, so the trace keeps
 * the event's trace id and a replay of the dead letter (its record carries this span's context)
 * continues it.
 */
export function isDeadLetterWrite(kind: SpanKind, attributes: Attributes): boolean {
  return kind === SpanKind.PRODUCER && attributes[ATTR.deadLetterReason] !== undefined;
}

/** Spans sampled whatever the sampler says: retries and dead-letter writes. */
export function isAlwaysSampled(kind: SpanKind, attributes: Attributes): boolean {
  return isRetryAttempt(kind, attributes) || isDeadLetterWrite(kind, attributes);
}

/**
 * Every retry and every dead letter is traced whatever the ratio: the deliveries an operator
 * looks into are the ones that failed, and those are few. Everything else is the configured
 * sampler's to decide.
 */
export class FailuresSampled implements Sampler {
  readonly #delegate: Sampler;

  constructor(delegate: Sampler) {
    this.#delegate = delegate;
  }

  shouldSample(
    context: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    if (isAlwaysSampled(kind, attributes)) return SAMPLED;
    return this.#delegate.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `FailuresSampled{${this.#delegate.toString()}}`;
  }
}
