import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadIngressConfig } from '../src/config.ts';

const TOKEN = 'token-aaaaaaaaaaaaaaaa';

describe('loadIngressConfig', () => {
  it('has safe defaults: loopback, port 8080, topic events, 256 KiB bodies', () => {
    const config = loadIngressConfig({ INGRESS_TOKENS: TOKEN });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      topic: 'events',
      topicPartitions: 6,
      maxBodyBytes: 262_144,
      demo: false,
      connection: {
        kafka: { brokers: ['127.0.0.1:9092'], tls: null, sasl: null },
        registry: { url: 'http://127.0.0.1:8081/apis/ccompat/v7', auth: null },
      },
      tokenEntries: [TOKEN],
    });
  });

  it('lets --port win over INGRESS_PORT', () => {
    expect(loadIngressConfig({ INGRESS_TOKENS: TOKEN, INGRESS_PORT: '9000' }).port).toBe(9000);
    expect(loadIngressConfig({ INGRESS_TOKENS: TOKEN, INGRESS_PORT: '9000' }, { port: 9001 }).port).toBe(
      9001,
    );
  });

  it('refuses to start without tokens unless in demo mode', () => {
    expect(() => loadIngressConfig({})).toThrow(/INGRESS_TOKENS: no bearer tokens configured/);
    expect(loadIngressConfig({ INGRESS_DEMO: '1' }).demo).toBe(true);
  });

  it('refuses demo mode on anything but loopback, naming INGRESS_HOST', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'ingress.example.com']) {
      expect(() => loadIngressConfig({ INGRESS_DEMO: '1', INGRESS_HOST: host })).toThrow(
        /^INGRESS_HOST: demo mode/,
      );
    }
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) {
      expect(loadIngressConfig({ INGRESS_DEMO: '1', INGRESS_HOST: host }).demo).toBe(true);
    }
    // With tokens, demo mode is off and any address is fine.
    expect(
      loadIngressConfig({ INGRESS_DEMO: '1', INGRESS_TOKENS: TOKEN, INGRESS_HOST: '0.0.0.0' }).demo,
    ).toBe(false);
  });

  it('reads the limits, with defaults, and no metrics listener or rate limit unless asked', () => {
    expect(loadIngressConfig({ INGRESS_TOKENS: TOKEN })).toMatchObject({
      queueMaxRecords: 10_000,
      queueMaxBytes: 64 * 1024 * 1024,
      metrics: null,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 1024,
      rateLimit: null,
    });
    expect(
      loadIngressConfig({
        INGRESS_TOKENS: TOKEN,
        INGRESS_METRICS_PORT: '9464',
        INGRESS_RATE_LIMIT_PER_S: '50',
      }),
    ).toMatchObject({ metrics: { host: '127.0.0.1', port: 9464 }, rateLimit: { perSecond: 50, burst: 50 } });
    expect(() =>
      loadIngressConfig({
        INGRESS_TOKENS: TOKEN,
        INGRESS_HEADERS_TIMEOUT_MS: '30000',
        INGRESS_REQUEST_TIMEOUT_MS: '30000',
      }),
    ).toThrow(/^INGRESS_HEADERS_TIMEOUT_MS: /);
  });

  it('reads a tokens file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tokens-')), 'tokens');
    writeFileSync(file, `# producers\n${TOKEN}=key.revoked\n`);
    expect(loadIngressConfig({ INGRESS_TOKENS_FILE: file }).tokenEntries).toContain(`${TOKEN}=key.revoked`);
    expect(() => loadIngressConfig({ INGRESS_TOKENS_FILE: `${file}.missing` })).toThrow(
      /^INGRESS_TOKENS_FILE: cannot read/,
    );
  });

  it.each([
    ['INGRESS_PORT', 'eighty'],
    ['INGRESS_MAX_BODY_BYTES', '-1'],
    ['INGRESS_TOPIC', 'bad topic'],
    ['INGRESS_DEMO', 'maybe'],
    ['REGISTRY_URL', 'not a url'],
    ['INGRESS_TOPIC_PARTITIONS', '1e9'],
    ['INGRESS_ACK_TIMEOUT_MS', '99999999999'],
    ['INGRESS_DEDUP_WINDOW_MS', '1e12'],
    ['INGRESS_RETRY_AFTER_S', '1e6'],
    ['INGRESS_QUEUE_MAX_RECORDS', '0'],
    ['INGRESS_QUEUE_MAX_BYTES', 'lots'],
    ['INGRESS_METRICS_PORT', '70000'],
    ['INGRESS_HEADERS_TIMEOUT_MS', '5'],
    ['INGRESS_REQUEST_TIMEOUT_MS', '1e9'],
    ['INGRESS_MAX_CONNECTIONS', '0'],
    ['INGRESS_RATE_LIMIT_PER_S', '-1'],
  ])('fails fast naming %s when it is %j', (name, value) => {
    expect(() => loadIngressConfig({ INGRESS_TOKENS: TOKEN, [name]: value })).toThrow(
      new RegExp(`^${name}: `),
    );
  });
});
