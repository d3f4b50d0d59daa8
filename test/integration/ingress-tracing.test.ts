import { randomUUID } from 'node:crypto';
import { CE_HEADER } from '@hookstream/contracts';
import { findEventTraces, type JaegerSpan, type JaegerTrace } from '@hookstream/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../support/ingress.ts';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic, readRecords } from '../support/topic.ts';
import { TRACING_BACKEND_WAIT_MS, tracingBackend } from '../support/tracing-backend.ts';
import { waitFor } from '../support/wait.ts';

// Reads traces: waits for Jaeger, which may still be building on a fresh machine.
beforeAll(tracingBackend, TRACING_BACKEND_WAIT_MS);

function tag(span: JaegerSpan, key: string): unknown {
  return span.tags.find((t) => t.key === key)?.value;
}

/** The event's trace once Jaeger holds both the server span and the publish span. */
function traceOf(eventId: string): Promise<JaegerTrace> {
  return waitFor(
    `the trace of ${eventId} in Jaeger`,
    async () => {
      const traces = await findEventTraces(endpoints.jaegerQuery, eventId, ['hookstream-ingress']);
      const t = traces[0];
      return t && traces.length === 1 && t.spans.length >= 2 ? t : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}

describe('ingress tracing, exported to the real Jaeger', () => {
  const topic = uniqueName('ingress-tracing');
  let ingress: IngressProcess;

  beforeAll(async () => {
    await createTopic(topic, 3);
    ingress = await spawnIngressCli(topic, { OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
  }, 60_000);
  afterAll(async () => {
    await ingress?.stop();
  });

  it('one trace per event: SERVER span POST /v1/events, its PRODUCER child, and the traceparent on Kafka', async () => {
    const eventId = `evt_${randomUUID()}`;
    // The caller's own trace: the ingress must continue it, not start another.
    const callerTrace = randomUUID().replaceAll('-', '');
    const callerSpan = randomUUID().replaceAll('-', '').slice(0, 16);
    const answer = await post(
      `${ingress.url}/v1/events`,
      { id: eventId, type: 'key.revoked', key: 'tenant-7', data: { tenant_id: 'tenant-7', key_id: 'k-1' } },
      { headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` } },
    );
    expect(answer.status).toBe(202);
    const { partition, offset } = answer.body as { partition: number; offset: string };

    const found = await traceOf(eventId);
    expect(found.traceID).toBe(callerTrace);
    const server = found.spans.find((s) => tag(s, 'span.kind') === 'server');
    const publish = found.spans.find((s) => tag(s, 'span.kind') === 'producer');
    expect(server?.operationName).toBe('POST /v1/events');
    expect(server?.references).toContainEqual(
      expect.objectContaining({ refType: 'CHILD_OF', spanID: callerSpan }),
    );
    expect(tag(server as JaegerSpan, 'http.response.status_code')).toBe(202);
    expect(publish?.operationName).toBe(`send ${topic}`);
    expect(publish?.references).toContainEqual(
      expect.objectContaining({ refType: 'CHILD_OF', spanID: server?.spanID }),
    );
    const p = publish as JaegerSpan;
    expect(tag(p, 'messaging.system')).toBe('kafka');
    expect(tag(p, 'messaging.operation.type')).toBe('send');
    expect(tag(p, 'messaging.destination.name')).toBe(topic);
    expect(tag(p, 'messaging.message.id')).toBe(eventId);
    // A digest of the key, not the key (tenant ids stay out of the shared Jaeger).
    expect(tag(p, 'messaging.kafka.message.key')).toBe('sha256:d68629cd920ffa5d');
    expect(tag(p, 'hookstream.event.type')).toBe('key.revoked');
    expect(tag(p, 'messaging.destination.partition.id')).toBe(String(partition));
    expect(tag(p, 'messaging.kafka.offset')).toBe(Number(offset));

    // Consumers continue the trace from the record: its traceparent is the publish span's context.
    const records = await readRecords(topic, 1);
    const record = records.find((r) => r.headers[CE_HEADER.id] === eventId);
    expect(record?.headers.traceparent).toBe(`00-${found.traceID}-${p.spanID}-01`);
  });

  it('starts a trace when the request carries none; each event of a batch gets its own publish span', async () => {
    const ids = [`evt_${randomUUID()}`, `evt_${randomUUID()}`];
    const answer = await post(`${ingress.url}/v1/events/batch`, {
      events: ids.map((id) => ({ id, type: 'key.revoked', data: { tenant_id: 't', key_id: id } })),
    });
    expect(answer.status).toBe(202);
    const first = await traceOf(ids[0] as string);
    const server = first.spans.find((s) => tag(s, 'span.kind') === 'server');
    expect(server?.operationName).toBe('POST /v1/events/batch');
    expect(server?.references).toEqual([]);
    const publishes = first.spans.filter((s) => tag(s, 'span.kind') === 'producer');
    expect(publishes.map((s) => tag(s, 'messaging.message.id')).sort()).toEqual([...ids].sort());
    for (const s of publishes)
      expect(s.references).toContainEqual(
        expect.objectContaining({ refType: 'CHILD_OF', spanID: server?.spanID }),
      );
  });
});
