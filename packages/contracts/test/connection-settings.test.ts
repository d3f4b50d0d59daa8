import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionEnv,
  connectionSettingsOf,
  describeConnection,
  loadConnectionSettings,
} from '../src/connection-settings.ts';
import { HookstreamError } from '../src/hookstream-error.ts';

function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
}

function expectBadConfig(f: () => unknown, message: RegExp): void {
  const thrown = thrownBy(f);
  expect(thrown).toBeInstanceOf(HookstreamError);
  expect(thrown).toMatchObject({
    code: 'BAD_CONFIG',
    canRetry: false,
    message: expect.stringMatching(message),
  });
}

describe('loadConnectionSettings', () => {
  it("defaults to the local stack's ports on 127.0.0.1, plaintext, which KAFKA_PORT and REGISTRY_PORT move", () => {
    expect(loadConnectionSettings({})).toEqual({
      kafka: { brokers: ['127.0.0.1:9092'], tls: null, sasl: null },
      registry: { url: 'http://127.0.0.1:8081/apis/ccompat/v7', auth: null, ca: undefined },
      limiterRedisUrl: undefined,
    });
    expect(loadConnectionSettings({ KAFKA_PORT: '19092', REGISTRY_PORT: '18081' })).toMatchObject({
      kafka: { brokers: ['127.0.0.1:19092'] },
      registry: { url: 'http://127.0.0.1:18081/apis/ccompat/v7' },
    });
  });

  it('takes brokers, a registry URL and a Redis URL (password kept) as given', () => {
    expect(
      loadConnectionSettings({
        KAFKA_BROKERS: 'kafka-0.internal:9093, kafka-1.internal:9093',
        REGISTRY_URL: 'https://registry.internal/apis/ccompat/v7',
        HOOKSTREAM_LIMITER_REDIS: 'rediss://:s3cret@redis.internal:6380',
      }),
    ).toMatchObject({
      kafka: { brokers: ['kafka-0.internal:9093', 'kafka-1.internal:9093'] },
      registry: { url: 'https://registry.internal/apis/ccompat/v7' },
      limiterRedisUrl: 'rediss://:s3cret@redis.internal:6380',
    });
  });

  it('takes SASL credentials, the password from a file winning over the variable', () => {
    const files: Record<string, string> = { '/run/secrets/kafka': 'from-file\n' };
    const read = (p: string) => files[p] ?? '';
    expect(
      loadConnectionSettings(
        {
          KAFKA_SASL_MECHANISM: 'scram-sha-512',
          KAFKA_SASL_USERNAME: 'pusher',
          KAFKA_SASL_PASSWORD: 'ignored',
          KAFKA_SASL_PASSWORD_FILE: '/run/secrets/kafka',
        },
        read,
      ).kafka.sasl,
    ).toEqual({ mechanism: 'scram-sha-512', username: 'pusher', password: 'from-file' });
  });

  it('moves registry user-info out of the URL, REGISTRY_USERNAME / _PASSWORD overriding it', () => {
    const fromUrl = loadConnectionSettings({
      REGISTRY_URL: 'https://ops:p%40ss@registry.internal/apis/ccompat/v7/',
    });
    expect(fromUrl.registry).toEqual({
      url: 'https://registry.internal/apis/ccompat/v7',
      auth: { username: 'ops', password: 'p@ss' },
      ca: undefined,
    });
    const fromVars = loadConnectionSettings({
      REGISTRY_URL: 'https://ops:p%40ss@registry.internal/',
      REGISTRY_USERNAME: 'svc',
      REGISTRY_PASSWORD: 'other',
    });
    expect(fromVars.registry.auth).toEqual({ username: 'svc', password: 'other' });
  });

  it('describes settings without any password', () => {
    const described = JSON.stringify(
      describeConnection(
        loadConnectionSettings({
          KAFKA_SASL_MECHANISM: 'plain',
          KAFKA_SASL_USERNAME: 'ingress',
          KAFKA_SASL_PASSWORD: 'kafka-secret',
          REGISTRY_URL: 'https://ops:registry-secret@registry.internal/?api_key=query-secret',
          HOOKSTREAM_LIMITER_REDIS: 'redis://:redis-secret@redis.internal:6379',
        }),
      ),
    );
    expect(described).toContain('ingress');
    expect(described).not.toMatch(/kafka-secret|registry-secret|query-secret|redis-secret/);
  });

  it.each([
    [
      'HOOKSTREAM_LIMITER_REDIS',
      'redis://:s3cret@redis.internal:63790000',
      'redis://REDACTED@redis.internal:63790000',
    ],
    [
      'HOOKSTREAM_LIMITER_REDIS',
      'http://user:s3cret@redis.internal:6379',
      'http://REDACTED@redis.internal:6379',
    ],
    ['REGISTRY_URL', 'https://ops:s3#cret@registry.internal', 'https://REDACTED@registry.internal'],
    ['REGISTRY_URL', 'ftp://registry.internal/?api_key=s3cret', 'ftp://registry.internal/?api_key=REDACTED'],
  ])('passwords are not echoed: connection settings, %s=%s', (variable, value, shown) => {
    const thrown = thrownBy(() => loadConnectionSettings({ [variable]: value }));
    expect(thrown).toMatchObject({ code: 'BAD_CONFIG' });
    const message = (thrown as Error).message;
    expect(message).toMatch(new RegExp(`^${variable}: `));
    expect(message).toContain(`got '${shown}'`);
    expect(message).not.toContain('s3');
  });

  it.each([
    [{ KAFKA_BROKERS: 'kafka-0' }, /^KAFKA_BROKERS/],
    [{ KAFKA_PORT: '99999' }, /^KAFKA_PORT/],
    [{ REGISTRY_URL: 'ftp://registry' }, /^REGISTRY_URL/],
    [{ HOOKSTREAM_LIMITER_REDIS: 'http://redis:6379' }, /^HOOKSTREAM_LIMITER_REDIS/],
    [{ KAFKA_SASL_MECHANISM: 'gssapi' }, /^KAFKA_SASL_MECHANISM/],
    [{ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'x' }, /^KAFKA_SASL_USERNAME/],
    [{ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'x' }, /^KAFKA_SASL_PASSWORD/],
    [{ KAFKA_SASL_USERNAME: 'x', KAFKA_SASL_PASSWORD: 'y' }, /^KAFKA_SASL_MECHANISM/],
    [
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'x', KAFKA_SASL_PASSWORD_FILE: '/nonexistent/p' },
      /^KAFKA_SASL_PASSWORD_FILE: cannot read/,
    ],
    [{ KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem' }, /^KAFKA_TLS_CA_FILE: cannot read/],
    [{ KAFKA_TLS: 'false', KAFKA_TLS_CA_FILE: '/x' }, /^KAFKA_TLS: false/],
    [{ KAFKA_TLS: 'yes' }, /^KAFKA_TLS/],
    [{ REGISTRY_PASSWORD: 'x' }, /^REGISTRY_USERNAME/],
    [{ REGISTRY_CA_FILE: '/etc/hostname' }, /^REGISTRY_CA_FILE: set, but REGISTRY_URL is not https/],
  ])('refuses %o naming the variable', (env, message) => {
    expectBadConfig(() => loadConnectionSettings(env), message);
  });
});

describe('Kafka TLS files', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookstream-tls-'));
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=test-ca',
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
    );
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=client',
      '-keyout',
      file('client.key'),
      '-out',
      file('client.pem'),
    );
    // Key generation runs beside the whole unit suite on 2 cores: the 10 s default is too tight.
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns TLS on with a CA file and reads the certificate pair for mTLS', () => {
    const tls = loadConnectionSettings({
      KAFKA_TLS_CA_FILE: file('ca.pem'),
      KAFKA_TLS_CERT_FILE: file('client.pem'),
      KAFKA_TLS_KEY_FILE: file('client.key'),
    }).kafka.tls;
    expect(tls).toEqual({
      ca: readFileSync(file('ca.pem'), 'utf8'),
      cert: readFileSync(file('client.pem'), 'utf8'),
      key: readFileSync(file('client.key'), 'utf8'),
      checkServerName: true,
    });
    expect(loadConnectionSettings({ KAFKA_TLS: 'true' }).kafka.tls).toEqual({
      ca: undefined,
      cert: undefined,
      key: undefined,
      checkServerName: true,
    });
  });

  it('refuses a certificate without its key, a key of another certificate, a file that is no PEM', () => {
    expectBadConfig(
      () => loadConnectionSettings({ KAFKA_TLS_CERT_FILE: file('client.pem') }),
      /^KAFKA_TLS_KEY_FILE: mTLS needs both/,
    );
    expectBadConfig(
      () =>
        loadConnectionSettings({
          KAFKA_TLS_CERT_FILE: file('client.pem'),
          KAFKA_TLS_KEY_FILE: file('ca.key'),
        }),
      /^KAFKA_TLS_KEY_FILE: the key does not belong/,
    );
    expectBadConfig(
      () => loadConnectionSettings({ KAFKA_TLS_CA_FILE: file('ca.key') }),
      /^KAFKA_TLS_CA_FILE: not a PEM certificate/,
    );
  });

  it('refuses an expired client certificate, naming its date', () => {
    const env = { KAFKA_TLS_CERT_FILE: file('client.pem'), KAFKA_TLS_KEY_FILE: file('client.key') };
    const inThreeDays = new Date(Date.now() + 3 * 24 * 3600 * 1000);
    const read = (p: string) => readFileSync(p, 'utf8');
    expectBadConfig(
      () => connectionSettingsOf(ConnectionEnv.parse(env), read, inThreeDays),
      /^KAFKA_TLS_CERT_FILE: the certificate expired on/,
    );
  });
});
