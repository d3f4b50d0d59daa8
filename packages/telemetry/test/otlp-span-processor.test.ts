import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpProtobufSpanProcessor } from '../src/otlp-span-processor.ts';

const resource = resourceFromAttributes({ 'service.name': 'hookstream-pusher' });
const scope = { name: 'hookstream-pusher' };

function span(i: number, sampled = true): ReadableSpan {
  const context = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: i.toString(16).padStart(16, '0'),
    traceFlags: sampled ? 1 : 0,
  };
  return {
    name: 'process events',
    kind: SpanKind.CONSUMER,
    spanContext: () => context,
    startTime: [1796031674, i],
    endTime: [1796031675, i],
    duration: [1, 0],
    ended: true,
    status: { code: SpanStatusCode.UNSET },
    attributes: { 'messaging.message.id': `evt_${i}`, 'hookstream.attempt': 1 },
    links: [],
    events: [],
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

describe('OtlpProtobufSpanProcessor', () => {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts sampled spans in batches, as the SDK exporter would encode them', async () => {
    bodies.length = 0;
    const processor = new OtlpProtobufSpanProcessor({
      url,
      scheduledDelayMillis: 10_000,
      maxQueueSize: 100,
      maxExportBatchSize: 4,
    });
    const sampled = [1, 2, 3, 4, 5, 6].map((i) => span(i));
    for (const s of sampled) processor.onEnd(s);
    processor.onEnd(span(7, false));
    await processor.shutdown();
    // A full batch of four went at once; the other two on shutdown; the unsampled span not at all.
    expect(bodies.map((b) => b.toString('hex'))).toEqual(
      [sampled.slice(0, 4), sampled.slice(4)].map((batch) =>
        Buffer.from(ProtobufTraceSerializer.serializeRequest(batch) ?? new Uint8Array()).toString('hex'),
      ),
    );
  });

  it('drops spans beyond maxQueueSize instead of growing without bound, and counts them', async () => {
    bodies.length = 0;
    const processor = new OtlpProtobufSpanProcessor({
      url,
      scheduledDelayMillis: 10_000,
      maxQueueSize: 3,
      maxExportBatchSize: 100,
    });
    for (let i = 1; i <= 5; i++) processor.onEnd(span(i));
    expect(processor.stats()).toEqual({ heldSpans: 0, heldBytes: 0, droppedSpans: 2 });
    await processor.forceFlush();
    await processor.shutdown();
    expect(bodies).toHaveLength(1);
    expect(bodies[0]?.toString('hex')).toBe(
      Buffer.from(ProtobufTraceSerializer.serializeRequest([1, 2, 3].map((i) => span(i))) ?? []).toString(
        'hex',
      ),
    );
  });
});

/** A collector that is not there yet: a free port, on which a server starts when the test says. */
async function lateCollector(answer: number) {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(answer, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    bodies,
    start: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(what: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('OtlpProtobufSpanProcessor while the collector does not answer', () => {
  // A short export timeout: each failed export (with the transport's own retries) ends in ~1 s.
  const settings = {
    scheduledDelayMillis: 50,
    maxQueueSize: 1000,
    maxExportBatchSize: 2,
    timeoutMillis: 1000,
  };

  it('holds the spans and sends each once, when the collector answers', async () => {
    const collector = await lateCollector(200);
    const states: string[] = [];
    const processor = new OtlpProtobufSpanProcessor({
      url: collector.url,
      ...settings,
      onCollectorState: (s) => states.push(JSON.stringify(s)),
    });
    const spans = [1, 2, 3, 4, 5].map((i) => span(i));
    for (const s of spans) processor.onEnd(s);
    await until('every span to be held', () => processor.stats().heldSpans === 5);
    expect(states).toHaveLength(1);
    expect(JSON.parse(states[0] ?? '{}')).toMatchObject({
      state: 'unreachable',
      maxHeldBytes: 16 * 1024 * 1024,
    });

    await collector.start();
    await until('the held spans to be sent', () => processor.stats().heldSpans === 0);
    // Each span once; requests held by concurrent exports may arrive in either order.
    const received = collector.bodies.flatMap((b) => spanIdsIn(b, spans));
    expect(received.sort()).toEqual(spans.map((s) => s.spanContext().spanId));
    expect(JSON.parse(states[1] ?? '{}')).toEqual({ state: 'answering', sentHeldSpans: 5, droppedSpans: 0 });
    expect(processor.stats().droppedSpans).toBe(0);
    await processor.shutdown();
    await collector.close();
  }, 60_000);

  it('drops and counts what does not fit in the bound, and never blocks the code ending spans', async () => {
    const collector = await lateCollector(200);
    const one = span(1);
    const processor = new OtlpProtobufSpanProcessor({
      url: collector.url,
      ...settings,
      maxExportBatchSize: 1,
      // Room for two one-span requests.
      maxHeldBytes: 2 * requestBytes([one]) + 10,
    });
    const started = performance.now();
    for (let i = 1; i <= 6; i++) processor.onEnd(span(i));
    expect(performance.now() - started).toBeLessThan(1000);
    await until('the requests to be held or dropped', () => {
      const stats = processor.stats();
      return stats.heldSpans + stats.droppedSpans === 6;
    });
    expect(processor.stats()).toMatchObject({ heldSpans: 2, droppedSpans: 4 });
    await collector.start();
    await until('the held spans to be sent', () => processor.stats().heldSpans === 0);
    expect(
      collector.bodies.flatMap((b) =>
        spanIdsIn(
          b,
          [1, 2, 3, 4, 5, 6].map((i) => span(i)),
        ),
      ),
    ).toHaveLength(2);
    await processor.shutdown();
    await collector.close();
  }, 60_000);

  it('drops a request the collector refuses (4xx) instead of holding it', async () => {
    const collector = await lateCollector(400);
    await collector.start();
    const processor = new OtlpProtobufSpanProcessor({ url: collector.url, ...settings });
    processor.onEnd(span(1));
    processor.onEnd(span(2));
    await until('the refusal', () => processor.stats().droppedSpans === 2);
    expect(processor.stats().heldSpans).toBe(0);
    await processor.shutdown();
    await collector.close();
  });

  it('counts the spans still held at shutdown as dropped', async () => {
    const collector = await lateCollector(200);
    const processor = new OtlpProtobufSpanProcessor({ url: collector.url, ...settings });
    processor.onEnd(span(1));
    processor.onEnd(span(2));
    await until('the spans to be held', () => processor.stats().heldSpans === 2);
    await processor.shutdown();
    expect(processor.stats()).toEqual({ heldSpans: 0, heldBytes: 0, droppedSpans: 2 });
  }, 60_000);
});

/** The ids of those spans whose 8 id bytes an encoded request carries. */
function spanIdsIn(body: Buffer, spans: ReadableSpan[]): string[] {
  return spans.map((s) => s.spanContext().spanId).filter((id) => body.includes(Buffer.from(id, 'hex')));
}

function requestBytes(spans: ReadableSpan[]): number {
  return (ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array()).byteLength;
}
