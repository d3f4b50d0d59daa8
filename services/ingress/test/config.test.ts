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
      brokers: ['127.0.0.1:9092'],
      registryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
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
  ])('fails fast naming %s when it is %j', (name, value) => {
    expect(() => loadIngressConfig({ INGRESS_TOKENS: TOKEN, [name]: value })).toThrow(
      new RegExp(`^${name}: `),
    );
  });
});
