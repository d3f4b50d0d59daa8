import { type Context, context, propagation, ROOT_CONTEXT, type TextMapGetter } from '@opentelemetry/api';

/** Kafka record headers as kafkajs hands them over. */
export type KafkaHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

const kafkaHeaderGetter: TextMapGetter<KafkaHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  },
};

/**
 * Writes the W3C trace context of `ctx` (traceparent, tracestate) into headers bound for Kafka
 * or HTTP. A no-op when tracing is off: no propagator is registered then.
 */
export function injectTraceContext(headers: Record<string, string>, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers);
}

/** Reads the trace context a record carries, so processing continues the producer's trace. */
export function extractTraceContext(headers: KafkaHeaders | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, kafkaHeaderGetter) : ROOT_CONTEXT;
}
