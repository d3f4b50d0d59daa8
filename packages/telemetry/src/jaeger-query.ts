import { HookstreamError, redactUrlText } from '@hookstream/contracts';
import { z } from 'zod';

const JaegerTag = z.object({ key: z.string(), value: z.unknown() });

export const JaegerSpan = z.object({
  traceID: z.string(),
  spanID: z.string(),
  operationName: z.string(),
  startTime: z.number(),
  duration: z.number(),
  processID: z.string(),
  tags: z.array(JaegerTag),
  references: z.array(z.object({ refType: z.string(), spanID: z.string() })).default([]),
});
export type JaegerSpan = z.infer<typeof JaegerSpan>;

export const JaegerTrace = z.object({
  traceID: z.string(),
  spans: z.array(JaegerSpan),
  processes: z.record(z.string(), z.object({ serviceName: z.string() })),
});
export type JaegerTrace = z.infer<typeof JaegerTrace>;

const TracesResponse = z.object({ data: z.array(JaegerTrace).nullable() });

/** The services whose spans can carry an event id. */
export const HOOKSTREAM_SERVICES = ['hookstream-ingress', 'hookstream-pusher', 'hookstream-replay'] as const;

/**
 * Finds every trace holding a span tagged `messaging.message.id = eventId`, through Jaeger's
 * HTTP query API (which wants a service per search, so each hookstream service is asked).
 */
export async function findEventTraces(
  queryUrl: string,
  eventId: string,
  services: readonly string[] = HOOKSTREAM_SERVICES,
): Promise<JaegerTrace[]> {
  refuseUserInfo(queryUrl);
  const tags = JSON.stringify({ 'messaging.message.id': eventId });
  const ids = new Set<string>();
  for (const service of services) {
    const url = `${queryUrl}/api/traces?service=${encodeURIComponent(service)}&tags=${encodeURIComponent(tags)}&lookback=7d&limit=20`;
    const res = await askJaeger(queryUrl, url);
    // Jaeger answers 4xx/5xx for a service it has never seen; that service simply has no spans.
    if (!res.ok) continue;
    for (const trace of TracesResponse.parse(await res.json()).data ?? []) ids.add(trace.traceID);
  }
  const traces: JaegerTrace[] = [];
  for (const id of ids) {
    const res = await askJaeger(queryUrl, `${queryUrl}/api/traces/${id}`);
    if (!res.ok) continue;
    traces.push(...(TracesResponse.parse(await res.json()).data ?? []));
  }
  return traces;
}

/**
 * fetch refuses a URL with user info and quotes it whole, password and all, in its error: such a
 * query URL is refused here, without it.
 */
function refuseUserInfo(queryUrl: string): void {
  const url = URL.canParse(queryUrl) ? new URL(queryUrl) : null;
  if (url !== null && (url.username !== '' || url.password !== ''))
    throw new HookstreamError(
      'BAD_JAEGER_URL',
      `the Jaeger query URL ${redactUrlText(queryUrl)}: no user:password@ (fetch sends none)`,
      false,
    );
}

/** One request to Jaeger; a failure names the query URL without user info or query values. */
async function askJaeger(queryUrl: string, url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    const why = err instanceof Error ? `${err.message}${cause}` : String(err);
    // No `cause`: its message may quote the URL unredacted; ours has what it said.
    throw new HookstreamError('JAEGER_UNREACHABLE', redactUrlText(`Jaeger at ${queryUrl}: ${why}`), true);
  }
}

export interface TimelineEntry {
  readonly traceId: string;
  /** Milliseconds since the trace's first span started. */
  readonly atMs: number;
  readonly durationMs: number;
  readonly service: string;
  readonly operation: string;
  readonly subscriber?: string;
  readonly attempt?: number;
  readonly outcome?: string;
  readonly httpStatus?: number;
}

/** Flattens traces into one timeline, oldest span first. */
export function traceTimeline(traces: readonly JaegerTrace[]): TimelineEntry[] {
  const spans = traces.flatMap((t) => t.spans.map((s) => ({ trace: t, span: s })));
  const origin = Math.min(...spans.map(({ span }) => span.startTime));
  return spans
    .sort((a, b) => a.span.startTime - b.span.startTime)
    .map(({ trace, span }) => {
      const tag = (key: string) => span.tags.find((t) => t.key === key)?.value;
      const entry: TimelineEntry = {
        traceId: trace.traceID,
        atMs: (span.startTime - origin) / 1000,
        durationMs: span.duration / 1000,
        service: trace.processes[span.processID]?.serviceName ?? span.processID,
        operation: span.operationName,
      };
      const subscriber = tag('hookstream.subscriber');
      const attempt = tag('hookstream.attempt');
      const outcome = tag('hookstream.outcome');
      const status = tag('http.response.status_code');
      return {
        ...entry,
        ...(typeof subscriber === 'string' ? { subscriber } : {}),
        ...(typeof attempt === 'number' ? { attempt } : {}),
        ...(typeof outcome === 'string' ? { outcome } : {}),
        ...(typeof status === 'number' ? { httpStatus: status } : {}),
      };
    });
}
