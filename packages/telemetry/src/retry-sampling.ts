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
 * Every retry is traced whatever the ratio: the deliveries an operator looks into are the ones
 * that failed, and those are few. Everything else is the configured sampler's to decide.
 */
export class RetriesSampled implements Sampler {
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
    if (isRetryAttempt(kind, attributes)) return SAMPLED;
    return this.#delegate.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `RetriesSampled{${this.#delegate.toString()}}`;
  }
}
