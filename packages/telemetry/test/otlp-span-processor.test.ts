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

  it('drops spans beyond maxQueueSize instead of growing without bound', async () => {
    bodies.length = 0;
    const processor = new OtlpProtobufSpanProcessor({
      url,
      scheduledDelayMillis: 10_000,
      maxQueueSize: 3,
      maxExportBatchSize: 100,
    });
    for (let i = 1; i <= 5; i++) processor.onEnd(span(i));
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
