import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dlqTopicName, retryTopicName, subscriberGroupId } from '@hookstream/contracts';
import { SampleReceiver } from '@hookstream/receiver';
import { findEventTraces, type JaegerSpan, type JaegerTrace } from '@hookstream/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { post, TOKENS } from '../support/ingress.ts';
import { type IngressProcess, spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { freePort } from '../support/ports.ts';
import { type PusherProcess, spawnPusherCli } from '../support/pusher-process.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';
import { TRACING_BACKEND_WAIT_MS, tracingBackend } from '../support/tracing-backend.ts';
import { waitFor } from '../support/wait.ts';

// Reads traces: waits for Jaeger, which may still be building on a fresh machine.
beforeAll(tracingBackend, TRACING_BACKEND_WAIT_MS);

const tag = (span: JaegerSpan | undefined, key: string): unknown =>
  span?.tags.find((t) => t.key === key)?.value;
const parentOf = (span: JaegerSpan | undefined) =>
  span?.references.find((r) => r.refType === 'CHILD_OF')?.spanID;

/** Publishes a key.revoked of tenant `key` through the ingress, expecting its 202; its event id. */
async function publishRevoked(ingressUrl: string, key: string): Promise<string> {
  const eventId = `evt_${randomUUID()}`;
  const answer = await post(`${ingressUrl}/v1/events`, {
    id: eventId,
    type: 'key.revoked',
    key,
    data: { tenant_id: key, key_id: `k-${key.split('-')[1] ?? key}` },
  });
  expect(answer.status).toBe(202);
  return eventId;
}

/** One trace holding all of the event's spans, or fails; `expected` spans at least. */
function eventTrace(eventId: string, expected: number): Promise<JaegerTrace> {
  return waitFor(
    `${expected} spans of ${eventId} in one Jaeger trace`,
    async () => {
      const traces = await findEventTraces(endpoints.jaegerQuery, eventId);
      if (traces.length > 1) throw new Error(`the event is split over ${traces.length} traces`);
      const t = traces[0];
      return t && t.spans.length >= expected ? t : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
}

describe('one trace per event across the ingress, the pusher and a retry tier (real Jaeger)', () => {
  const topic = uniqueName('pusher-tracing');
  const name = uniqueName('traced');
  const tier1 = retryTopicName(name, 1);
  const receiver = new SampleReceiver({ record: true, behaviour: { failTimes: 1, failStatus: 500 } });
  let ingress: IngressProcess;
  let pusher: PusherProcess;

  beforeAll(async () => {
    await createTopic(topic, 3);
    await receiver.listen();
    ingress = await spawnIngressCli(topic);
    pusher = await spawnPusherCli(topic, {
      name,
      url: `${receiver.url}/hooks?token=query-secret`,
      retry: { delaysMs: [500], maxAttempts: 3 },
    });
  }, 120_000);
  afterAll(async () => {
    await pusher?.stop();
    await ingress?.stop();
    await receiver.close();
  });

  it('holds the publish span, both attempts with their HTTP spans, and the retry-tier hop', async () => {
    const eventId = await publishRevoked(ingress.url, 'tenant-9');
    await waitFor('attempt 2 to be accepted', async () =>
      receiver.stats().accepted === 1 ? true : undefined,
    );
    // The processes export in batches; stopping them flushes what is buffered.
    expect(await pusher.stop()).toBe(0);

    // server + publish (ingress), process + POST twice, send to tier 1 (pusher)
    const found = await eventTrace(eventId, 7);
    const service = (s: JaegerSpan) => found.processes[s.processID]?.serviceName;
    const pusherSpans = found.spans.filter((s) => service(s) === 'hookstream-pusher');
    const publish = found.spans.find(
      (s) => service(s) === 'hookstream-ingress' && tag(s, 'span.kind') === 'producer',
    );
    expect(publish?.operationName).toBe(`send ${topic}`);

    const processes = pusherSpans
      .filter((s) => tag(s, 'span.kind') === 'consumer')
      .sort((a, b) => Number(tag(a, 'hookstream.attempt')) - Number(tag(b, 'hookstream.attempt')));
    expect(
      processes.map((s) => [s.operationName, tag(s, 'hookstream.attempt'), tag(s, 'hookstream.outcome')]),
    ).toEqual([
      [`process ${topic}`, 1, 'retry-scheduled'],
      [`process ${tier1}`, 2, 'delivered'],
    ]);
    const [first, second] = processes;
    for (const s of processes) {
      expect(tag(s, 'messaging.system')).toBe('kafka');
      expect(tag(s, 'messaging.operation.type')).toBe('process');
      expect(tag(s, 'messaging.message.id')).toBe(eventId);
      expect(tag(s, 'messaging.consumer.group.name')).toBe(subscriberGroupId(name));
      expect(tag(s, 'hookstream.subscriber')).toBe(name);
      expect(tag(s, 'messaging.destination.partition.id')).toMatch(/^\d+$/);
      expect(typeof tag(s, 'messaging.kafka.offset')).toBe('number');
    }
    // Attempt 1 continues the ingress's publish span; the tier hop continues attempt 1.
    expect(parentOf(first)).toBe(publish?.spanID);
    const send = pusherSpans.find((s) => tag(s, 'span.kind') === 'producer');
    expect(send?.operationName).toBe(`send ${tier1}`);
    expect(tag(send, 'messaging.destination.name')).toBe(tier1);
    expect(tag(send, 'messaging.message.id')).toBe(eventId);
    expect(tag(send, 'hookstream.retry.tier')).toBe(1);
    expect(parentOf(send)).toBe(first?.spanID);
    expect(parentOf(second)).toBe(send?.spanID);
    expect(tag(second, 'hookstream.retry.tier')).toBe(1);

    // Each attempt's HTTP CLIENT span is its child; the request carried that span's context.
    const https = pusherSpans.filter((s) => tag(s, 'span.kind') === 'client');
    expect(https.map((s) => [s.operationName, parentOf(s), tag(s, 'http.response.status_code')])).toEqual(
      expect.arrayContaining([
        ['POST', first?.spanID, 500],
        ['POST', second?.spanID, 204],
      ]),
    );
    expect(https).toHaveLength(2);
    for (const h of https) {
      expect(tag(h, 'http.request.method')).toBe('POST');
      expect(tag(h, 'server.address')).toBe('127.0.0.1');
      expect(tag(h, 'url.full')).toBe(`${receiver.url}/hooks?token=REDACTED`);
    }
    const sent = receiver.arrivals.map((a) => a.headers?.traceparent);
    expect(sent).toEqual(
      [500, 204].map((status) => {
        const h = https.find((s) => tag(s, 'http.response.status_code') === status);
        return `00-${found.traceID}-${h?.spanID}-01`;
      }),
    );

    // The operator's view: both attempts in the event's timeline, in order.
    const run = await runCli(['trace', eventId, '--json', '--jaeger', endpoints.jaegerQuery], process.env);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      traceIds: string[];
      timeline: { service: string; operation: string; attempt?: number; outcome?: string }[];
    };
    expect(out.traceIds).toEqual([found.traceID]);
    expect(out.timeline.filter((e) => e.operation.startsWith('process '))).toEqual([
      expect.objectContaining({ service: 'hookstream-pusher', attempt: 1, outcome: 'retry-scheduled' }),
      expect.objectContaining({ service: 'hookstream-pusher', attempt: 2, outcome: 'delivered' }),
    ]);
    const table = await runCli(['trace', eventId, '--jaeger', endpoints.jaegerQuery], process.env);
    expect(table.stdout).toContain(`send ${tier1}`);
    expect(table.stdout).toContain('retry-scheduled');
  }, 90_000);

  it('a DLQ replay joins the event trace: dead letter, replay, delivery in one trace', async () => {
    const replayed = uniqueName('replayed');
    const endpoint = new SampleReceiver({ record: true, behaviour: { fixedStatus: 400 } });
    await endpoint.listen();
    const second = await spawnPusherCli(topic, {
      name: replayed,
      url: endpoint.url,
      start: 'latest',
      retry: { delaysMs: [500], maxAttempts: 3 },
    });
    try {
      const eventId = await publishRevoked(ingress.url, 'tenant-7');
      const dlqCount = async () => {
        const run = await runCli(['dlq', 'list', '--subscriber', replayed, '--json'], process.env);
        return run.code === 0 ? (JSON.parse(run.stdout) as { count: number }).count : 0;
      };
      await waitFor('the dead letter', async () => ((await dlqCount()) === 1 ? true : undefined));
      endpoint.setBehaviour({ fixedStatus: null });
      const replay = await runCli(['dlq', 'replay', '--subscriber', replayed, '--event-id', eventId], {
        ...process.env,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoints.otlpTraces,
      });
      expect(replay.code, replay.stderr).toBe(0);
      await waitFor('the replayed delivery', async () =>
        endpoint.stats().accepted === 1 ? true : undefined,
      );
      expect(await second.stop()).toBe(0);

      // server + publish (ingress); process + POST + send dlq; send tier 1 (replay); process + POST
      const found = await eventTrace(eventId, 8);
      const service = (s: JaegerSpan) => found.processes[s.processID]?.serviceName;
      const byKind = (svc: string, kind: string) =>
        found.spans.filter((s) => service(s) === svc && tag(s, 'span.kind') === kind);
      const [toDlq] = byKind('hookstream-pusher', 'producer');
      const [replaySend] = byKind('hookstream-replay', 'producer');
      const attempts = byKind('hookstream-pusher', 'consumer').sort((a, b) => a.startTime - b.startTime);
      expect(toDlq?.operationName).toBe(`send hookstream.sub.${replayed}.dlq`);
      expect(replaySend?.operationName).toBe(`send ${retryTopicName(replayed, 1)}`);
      expect(attempts.map((s) => tag(s, 'hookstream.outcome'))).toEqual(['dead-lettered', 'delivered']);
      // The replay continues the dead letter's context; the new delivery continues the replay.
      // Parent and link name the same span; Jaeger keeps one reference to it.
      expect(replaySend?.references.map((r) => r.spanID)).toContain(toDlq?.spanID);
      expect(parentOf(attempts[1])).toBe(replaySend?.spanID);
      expect(tag(replaySend, 'messaging.message.id')).toBe(eventId);
    } finally {
      await second.stop();
      await endpoint.close();
    }
  }, 120_000);
});

describe('a sampler that keeps no first attempt still traces every retry (real Jaeger)', () => {
  it('records the retry tier attempt and its request, not the first attempt', async () => {
    const topic = uniqueName('sampled-retries');
    const name = uniqueName('sampled');
    const receiver = new SampleReceiver({ record: true, behaviour: { failTimes: 1, failStatus: 500 } });
    await createTopic(topic, 1);
    await receiver.listen();
    // The ingress samples nothing, so the event's context arrives unsampled: the pusher's
    // default sampler (parent-based) follows it for attempt 1, and traces the retry regardless.
    const ingress = await spawnIngressCli(topic, { OTEL_TRACES_SAMPLER: 'always_off' });
    const pusher = await spawnPusherCli(topic, {
      name,
      url: `${receiver.url}/hooks`,
      retry: { delaysMs: [300], maxAttempts: 3 },
    });
    try {
      const eventId = await publishRevoked(ingress.url, 'tenant-7');
      await waitFor('attempt 2 accepted', async () => (receiver.stats().accepted === 1 ? true : undefined));
      expect(await pusher.stop()).toBe(0);
      // Only the retry's process span and its POST: nothing of the ingress or of attempt 1.
      const found = await eventTrace(eventId, 2);
      expect(found.spans).toHaveLength(2);
      const pusherSpans = found.spans.filter(
        (s) => found.processes[s.processID]?.serviceName === 'hookstream-pusher',
      );
      expect(
        pusherSpans
          .map((s) => [tag(s, 'span.kind'), s.operationName, tag(s, 'hookstream.attempt') ?? null])
          .sort(),
      ).toEqual(
        [
          ['client', 'POST', null],
          ['consumer', `process ${retryTopicName(name, 1)}`, 2],
        ].sort(),
      );
      expect(receiver.arrivals.map((a) => a.headers?.traceparent?.slice(-2))).toEqual(['00', '01']);
      expect(receiver.arrivals.map((a) => a.status)).toEqual([500, 204]);
    } finally {
      await pusher.stop();
      await ingress.stop();
      await receiver.close();
    }
  }, 120_000);
});

describe('a sampler that keeps no first attempt still traces every dead letter (real Jaeger)', () => {
  it("records the dead-letter write of a first attempt answered 400, alone in the event's trace", async () => {
    const topic = uniqueName('sampled-dead-letters');
    const name = uniqueName('sampled-dl');
    // 400: terminal, dead-lettered on the first attempt, whose process span was not sampled.
    const receiver = new SampleReceiver({ record: true, behaviour: { fixedStatus: 400 } });
    await createTopic(topic, 1);
    await receiver.listen();
    const ingress = await spawnIngressCli(topic, { OTEL_TRACES_SAMPLER: 'always_off' });
    // The production shape with nothing kept: the ratio is not what traces a dead letter.
    const pusher = await spawnPusherCli(
      topic,
      { name, url: `${receiver.url}/hooks`, retry: { delaysMs: [300], maxAttempts: 3 } },
      { env: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' } },
    );
    try {
      const eventId = await publishRevoked(ingress.url, 'tenant-8');
      await waitFor('the dead letter', async () =>
        pusher.output().includes('"msg":"dead-lettered"') ? true : undefined,
      );
      expect(await pusher.stop()).toBe(0);
      const found = await eventTrace(eventId, 1);
      expect(found.spans).toHaveLength(1);
      const [send] = found.spans;
      expect(found.processes[send?.processID ?? '']?.serviceName).toBe('hookstream-pusher');
      expect(send?.operationName).toBe(`send ${dlqTopicName(name)}`);
      expect(tag(send, 'span.kind')).toBe('producer');
      expect(tag(send, 'messaging.destination.name')).toBe(dlqTopicName(name));
      expect(tag(send, 'messaging.message.id')).toBe(eventId);
      expect(tag(send, 'hookstream.subscriber')).toBe(name);
      expect(tag(send, 'hookstream.dead_letter.reason')).toBe('terminal');
      expect(tag(send, 'hookstream.outcome.reason')).toBe('client-error');
      expect(tag(send, 'http.response.status_code')).toBe(400);
      expect(tag(send, 'hookstream.attempt')).toBe(1);
      expect(tag(send, 'messaging.kafka.message.key')).toMatch(/^sha256:/);
      // The request went out unsampled: only the dead letter's write is in the trace, in the
      // event's own trace (the one its unsampled parents had).
      expect(receiver.arrivals.map((a) => [a.status, a.headers?.traceparent?.slice(3, 35)])).toEqual([
        [400, found.traceID],
      ]);
      expect(receiver.arrivals[0]?.headers?.traceparent?.slice(-2)).toBe('00');
      // The operator's view: the dead letter in the event's timeline, with the answer's status.
      const run = await runCli(['trace', eventId, '--json', '--jaeger', endpoints.jaegerQuery], process.env);
      expect(run.code, run.stderr).toBe(0);
      const out = JSON.parse(run.stdout) as {
        timeline: { operation: string; attempt?: number; httpStatus?: number }[];
      };
      expect(out.timeline).toEqual([
        expect.objectContaining({ operation: `send ${dlqTopicName(name)}`, attempt: 1, httpStatus: 400 }),
      ]);
    } finally {
      await pusher.stop();
      await ingress.stop();
      await receiver.close();
    }
  }, 120_000);
});

describe("a failed first attempt's exemplar names its trace (real Jaeger, real /metrics)", () => {
  it('serves the first-attempt failure with the trace Jaeger holds, in OpenMetrics only', async () => {
    const topic = uniqueName('exemplars');
    const name = uniqueName('exemplar');
    const receiver = new SampleReceiver({ record: true, behaviour: { failTimes: 1, failStatus: 503 } });
    await createTopic(topic, 1);
    await receiver.listen();
    const ingress = await spawnIngressCli(topic);
    const pusher = await spawnPusherCli(
      topic,
      { name, url: `${receiver.url}/hooks`, retry: { delaysMs: [300], maxAttempts: 3 } },
      { metricsPort: await freePort() },
    );
    try {
      const eventId = await publishRevoked(ingress.url, 'tenant-6');
      await waitFor('attempt 2 accepted', async () => (receiver.stats().accepted === 1 ? true : undefined));
      const url = pusher.metricsUrl ?? '';
      const series = (text: string) =>
        text
          .split('\n')
          .find(
            (l) =>
              l.startsWith('hookstream_pusher_first_attempt_failures_total{') &&
              l.includes(`subscriber="${name}"`),
          );
      const res = await fetch(url, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
      expect(res.headers.get('content-type')).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
      const text = await res.text();
      expect(text.endsWith('# EOF\n')).toBe(true);
      const line = series(text) ?? '';
      const m =
        /outcome_class="retryable".*status_class="5xx".*\} 1 # \{trace_id="([0-9a-f]{32})",span_id="([0-9a-f]{16})"\} 1 \d+\.\d{3}$/.exec(
          line,
        );
      expect(m, line).not.toBeNull();
      // The text format is as before: the count, no exemplar.
      const plain = series(await (await fetch(url)).text());
      expect(plain).toMatch(/\} 1$/);
      expect(await pusher.stop()).toBe(0);
      // The exemplar's trace is the event's, and its span the failed first attempt's process span.
      const found = await eventTrace(eventId, 7);
      expect(found.traceID).toBe(m?.[1]);
      const first = found.spans.find((s) => s.spanID === m?.[2]);
      expect([
        first?.operationName,
        tag(first, 'hookstream.attempt'),
        tag(first, 'hookstream.outcome'),
      ]).toEqual([`process ${topic}`, 1, 'retry-scheduled']);
    } finally {
      await pusher.stop();
      await ingress.stop();
      await receiver.close();
    }
  }, 120_000);
});

describe('a bad sampler setting stops a component at start, naming the variable', () => {
  it('refuses an unknown sampler in the pusher and a ratio out of range in the ingress', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-sampler-'));
    const config = join(dir, 'def.json');
    await writeFile(
      config,
      JSON.stringify({ name: uniqueName('badsampler'), url: 'http://127.0.0.1:9/hooks' }),
    );
    const env = {
      ...process.env,
      KAFKA_BROKERS: endpoints.brokers.join(','),
      REGISTRY_URL: endpoints.registry,
    };
    const push = await runCli(['push', '--config', config, '--topic', uniqueName('badsampler')], {
      ...env,
      OTEL_TRACES_SAMPLER: 'parentbased_ratio',
    });
    expect(push.code).toBe(1);
    expect(push.stderr).toMatch(/^hookstream push: BAD_CONFIG: OTEL_TRACES_SAMPLER: .*'parentbased_ratio'/m);
    const ingress = await runCli(['ingress', '--port', '0'], {
      ...env,
      INGRESS_TOKENS: TOKENS.all,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '10',
    });
    expect(ingress.code).toBe(1);
    expect(ingress.stderr).toMatch(/^hookstream ingress: cannot start: OTEL_TRACES_SAMPLER_ARG: /m);
  }, 60_000);
});
