import { describe, expect, it } from 'vitest';
import { managedCredentialNames, parseSubscriberDefinition } from '../src/subscriber.ts';
import { fieldsNewerThan, recordVersionFor, SubscriberRecord } from '../src/subscriber-record.ts';

const parse = (extra: Record<string, unknown>) =>
  parseSubscriberDefinition({ name: 'billing', url: 'https://billing.example/hooks', ...extra });

const oauth2 = {
  tokenUrl: 'https://auth.example/oauth/token',
  clientId: 'hookstream',
  clientSecret: { env: 'HOOKSTREAM_OAUTH_BILLING' },
  scope: 'webhooks:write',
};
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const clientCertificate = { cert: CERT, key: { env: 'HOOKSTREAM_CLIENT_KEY_BILLING' } };

describe('outbound auth in a definition', () => {
  it('takes oauth2 client credentials and a client certificate', () => {
    const parsed = parse({ oauth2, clientCertificate });
    expect(parsed.ok && parsed.value.oauth2).toEqual(oauth2);
    expect(parsed.ok && parsed.value.clientCertificate).toEqual(clientCertificate);
  });

  it('takes managed credentials, named for sealing', () => {
    const parsed = parse({
      oauth2: { ...oauth2, clientSecret: { managed: true } },
      clientCertificate: { ...clientCertificate, key: { managed: true } },
    });
    if (!parsed.ok) throw new Error(parsed.error);
    expect(managedCredentialNames(parsed.value)).toEqual(['oauth2.clientSecret', 'clientCertificate.key']);
    const envOnly = parse({ oauth2, clientCertificate });
    expect(envOnly.ok && managedCredentialNames(envOnly.value)).toEqual([]);
  });

  it('refuses a bad token URL, an unknown field and a client secret in clear', () => {
    const errorOf = (extra: Record<string, unknown>) => {
      const parsed = parse(extra);
      return parsed.ok ? null : parsed.error;
    };
    expect(errorOf({ oauth2: { ...oauth2, tokenUrl: 'ftp://auth.example/token' } })).toMatch(
      /^oauth2.tokenUrl: an http\(s\) URL/,
    );
    expect(errorOf({ oauth2: { ...oauth2, grant: 'password' } })).toMatch(/unknown field "grant" in oauth2/);
    expect(errorOf({ oauth2: { ...oauth2, clientSecret: 'hunter2' } })).toMatch(/^oauth2.clientSecret: /);
    expect(errorOf({ oauth2: { ...oauth2, clientId: 'a\r\nb' } })).toMatch(/^oauth2.clientId: /);
  });

  it('holds the credentials to their own variable prefixes', () => {
    // A signing secret's variable would send that secret to the definition's token URL.
    const signing = parse({ oauth2: { ...oauth2, clientSecret: { env: 'HOOKSTREAM_SECRET_BILLING' } } });
    expect(signing.ok).toBe(false);
    if (!signing.ok) expect(signing.error).toMatch(/starting with HOOKSTREAM_OAUTH_/);
    const own = parse({
      clientCertificate: { ...clientCertificate, key: { env: 'HOOKSTREAM_SECRETS_KEY' } },
    });
    expect(own.ok).toBe(false);
    if (!own.ok) expect(own.error).toMatch(/starting with HOOKSTREAM_CLIENT_KEY_/);
    const notPem = parse({ clientCertificate: { ...clientCertificate, cert: 'MIIB' } });
    expect(notPem.ok).toBe(false);
  });

  it('refuses an Authorization header beside oauth2, and a client certificate on plain http', () => {
    const both = parse({ oauth2, headers: { Authorization: 'Bearer fixed' } });
    expect(both.ok ? null : both.error).toMatch(/^headers: no "Authorization" header with "oauth2"/);
    const plain = parse({ url: 'http://billing.example/hooks', clientCertificate });
    expect(plain.ok ? null : plain.error).toMatch(/^clientCertificate: only with an https: url/);
  });

  it('are record version 7 fields, which a version 6 record cannot hold', () => {
    for (const extra of [{ oauth2 }, { clientCertificate }]) {
      const parsed = parse(extra);
      if (!parsed.ok) throw new Error(parsed.error);
      expect(recordVersionFor(parsed.value)).toBe(7);
      expect(fieldsNewerThan(parsed.value, 6)).toEqual(Object.keys(extra));
      const record = (version: number) =>
        SubscriberRecord.safeParse({
          version,
          definition: parsed.value,
          state: { kind: 'active' },
          createdAt: '2026-12-04T10:00:00Z',
          updatedAt: '2026-12-04T10:00:00Z',
        }).success;
      expect([record(6), record(7)]).toEqual([false, true]);
    }
    const plain = parse({});
    expect(plain.ok && recordVersionFor(plain.value)).toBe(2);
  });
});
