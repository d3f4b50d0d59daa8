import type { Attributes, Span, SpanContext, SpanKind, Tracer } from '@opentelemetry/api';

/**
 * What the delivery spans (and the ingress's, ingress-spans.ts) need from a tracer, the cheap
 * way: spans started from a span context instead of an API Context, a parent read straight from
 * the record's (or request's) headers, and the headers a hand-off carries on. The implementation
 * (lite-spans.ts) stands in for one SDK tracer and exports spans equal to that tracer's; it is
 * loaded with the SDK, so a process with tracing off never loads it. This module holds only the
 * slots it is installed in.
 */
export interface LiteTracer {
  /** The parent a record's W3C headers name (undefined: none), or null when it cannot say. */
  remoteParent(headers: Readonly<Record<string, string>>): SpanContext | undefined | null;
  /** A span as the SDK tracer would start it under `parent` (a local parent unless isRemote). */
  startSpan(name: string, kind: SpanKind, attributes: Attributes, parent: SpanContext | undefined): Span;
  /** traceparent and tracestate of `span`, as the W3C propagator injects them; empty when invalid. */
  traceHeaders(span: Span): Record<string, string>;
}

interface Installed {
  readonly lite: LiteTracer;
  /** The tracer it stands in for, and the name of the API tracer that resolves to it. */
  readonly sdkTracer: Tracer;
  readonly name: string;
}

/** The tracer of the pusher's delivery spans. */
export const DELIVERY_TRACER_NAME = 'hookstream-pusher';

/** One per tracer name: the pusher's, and the ingress's two (ingress-spans.ts). */
let installed: readonly Installed[] = [];

/** Installs `lite` for the tracer `name`, in place of any installed for that name before. */
export function installLiteTracer(lite: LiteTracer, sdkTracer: Tracer, name: string): void {
  installed = [...installed.filter((i) => i.name !== name), { lite, sdkTracer, name }];
}

/** Removes every installed lite tracer. */
export function uninstallLiteTracer(): void {
  installed = [];
}

/**
 * The lite tracer standing in for `tracer`: the SDK's tracer itself, or the API's proxy for it
 * (a tracer obtained before the SDK started delegates to the SDK's tracer of its name).
 */
export function liteTracerFor(tracer: Tracer): LiteTracer | undefined {
  const all = installed;
  for (const current of all) if (tracer === current.sdkTracer) return current.lite;
  if (all.length === 0) return undefined;
  const proxy = tracer as Tracer & { name?: unknown; version?: unknown; options?: unknown };
  if (proxy.constructor?.name !== 'ProxyTracer' || proxy.version !== undefined || proxy.options !== undefined)
    return undefined;
  for (const current of all) if (proxy.name === current.name) return current.lite;
  return undefined;
}
