import { HS_HEADER } from '@hookstream/contracts';
import { checkReplayable, type Replayable, readDeadLetter } from '@hookstream/replay';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endReplaySpan, startReplaySpan } from '../src/replay-span.ts';

const ORIGINAL = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const h = HS_HEADER;

function replayable(traceparent: string | undefined): Replayable {
  const headers: Record<string, string> = {
    ce_id: 'evt_1',
    ce_type: 'shipment.updated',
    [h.eventId]: 'evt_1',
    [h.subscriber]: 'billing',
    [h.attempts]: '1',
    [h.deadLetteredAt]: '2026-05-01T10:00:00.000Z',
    [h.deadLetterReason]: 'terminal',
    [h.policyVersion]: '2026-11-1',
    [h.originTopic]: 'events',
    [h.originPartition]: '0',
    [h.originOffset]: '5',
  };
  if (traceparent !== undefined) headers.traceparent = traceparent;
  const letter = readDeadLetter({
    topic: 'hookstream.sub.billing.dlq',
    partition: 1,
    offset: '9',
    key: 'k',
    value: Buffer.from('v'),
    headers,
    timestampMs: 0,
  });
  const checked = checkReplayable(letter, 'billing');
  if (!checked.ok) throw new Error(checked.problem);
  return checked.replayable;
}

describe('replay spans without a tracing SDK', () => {
  it('inject nothing, so the tier record keeps the original traceparent', () => {
    const { span, traceparent } = startReplaySpan(
      trace.getTracer('t'),
      'tier',
      replayable(ORIGINAL),
      'rpl_1',
      'k',
    );
    expect(traceparent).toBeUndefined();
    expect(span.isRecording()).toBe(false);
  });
});

describe('replay spans with a tracing SDK', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('test');
  beforeAll(() => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(async () => {
    propagation.disable();
    context.disable();
    await provider.shutdown();
  });

  it("is a PRODUCER child of the DLQ record's context, linked to it, and its context goes on the record", () => {
    exporter.reset();
    const { span, traceparent } = startReplaySpan(
      tracer,
      'hookstream.sub.billing.retry.1',
      replayable(ORIGINAL),
      'rpl_1',
      'k',
    );
    endReplaySpan(span, 2, '40');
    const [finished] = exporter.getFinishedSpans();
    expect(finished?.name).toBe('send hookstream.sub.billing.retry.1');
    expect(finished?.kind).toBe(SpanKind.PRODUCER);
    expect(finished?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(finished?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(finished?.links.map((l) => l.context.spanId)).toEqual(['b7ad6b7169203331']);
    expect(finished?.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'hookstream.sub.billing.retry.1',
      'messaging.message.id': 'evt_1',
      'messaging.kafka.message.key': 'sha256:8254c329a92850f6',
      'hookstream.subscriber': 'billing',
      'hookstream.replay.of': 'hookstream.sub.billing.dlq:1:9',
      'hookstream.replay.id': 'rpl_1',
      'hookstream.event.type': 'shipment.updated',
      'messaging.destination.partition.id': '2',
      'messaging.kafka.offset': 40,
    });
    expect(traceparent).toBe(`00-0af7651916cd43dd8448eb211c80319c-${finished?.spanContext().spanId}-01`);
  });

  it('starts a new trace, with no link, for a DLQ record without a traceparent', () => {
    exporter.reset();
    const { span, traceparent } = startReplaySpan(tracer, 'tier', replayable(undefined), 'rpl_1', 'k');
    span.end();
    const [finished] = exporter.getFinishedSpans();
    expect(finished?.links).toEqual([]);
    expect(finished?.parentSpanContext).toBeUndefined();
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
