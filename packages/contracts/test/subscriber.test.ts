import { describe, expect, it } from 'vitest';
import { HEADER_ENV_PREFIX, SECRET_ENV_PREFIX } from '../src/env-references.ts';
import { acceptsEventType, managedHeaderNames, parseSubscriberDefinition } from '../src/subscriber.ts';

const minimal = { name: 'billing', url: 'https://hooks.example.com/in' };

function errorOf(input: unknown): string {
  const r = parseSubscriberDefinition(input);
  if (r.ok) throw new Error('expected a validation error');
  return r.error;
}

describe('subscriber definition', () => {
  it('fills sensible defaults for everything but name and url', () => {
    const r = parseSubscriberDefinition(minimal);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({
      eventTypes: ['*'],
      rate: { perSecond: 50, burst: 0 },
      concurrency: 10,
      timeoutMs: 10_000,
      start: 'latest',
      ordering: 'none',
      headers: {},
      allowPrivateNetwork: false,
    });
    expect(r.value.retry.delaysMs).toEqual([1_000, 10_000, 60_000, 600_000, 3_600_000]);
    expect(r.value.retry.maxAttempts).toBe(6);
    expect(r.value.secret).toBeUndefined();
  });

  it('a breaker object is optional; one given is filled with the defaults it leaves out', () => {
    const absent = parseSubscriberDefinition(minimal);
    expect(absent.ok && absent.value.breaker).toBeUndefined();
    const r = parseSubscriberDefinition({ ...minimal, breaker: { probeIntervalMs: 500 } });
    expect(r.ok && r.value.breaker).toEqual({
      enabled: true,
      consecutiveFailures: 10,
      failureRatio: 0.5,
      windowMs: 60_000,
      minAttempts: 20,
      probeIntervalMs: 500,
    });
  });

  it.each([
    [{ breaker: { probeIntervalMs: 50 } }, 'breaker.probeIntervalMs'],
    [{ breaker: { probeIntervalMs: 600_001 } }, 'breaker.probeIntervalMs'],
    [{ breaker: { failureRatio: 0 } }, 'breaker.failureRatio'],
    [{ breaker: { failureRatio: 1.5 } }, 'breaker.failureRatio'],
    [{ breaker: { consecutiveFailures: 0 } }, 'breaker.consecutiveFailures'],
    [{ breaker: { windowMs: 10 } }, 'breaker.windowMs'],
    [{ disableAfterMs: 1000 } as Record<string, unknown>, 'disableAfterMs'],
    [{ disableAfterMs: 31 * 86_400_000 }, 'disableAfterMs'],
  ])('bounds the health settings: %o is refused at %s', (extra, field) => {
    expect(errorOf({ ...minimal, ...extra })).toContain(field);
  });

  it('names an unknown breaker field', () => {
    expect(errorOf({ ...minimal, breaker: { probeEvery: 5 } })).toBe('unknown field "probeEvery" in breaker');
  });

  it('accepts a full definition', () => {
    const r = parseSubscriberDefinition({
      ...minimal,
      eventTypes: ['shipment.updated', 'student.enrolled'],
      rate: { perSecond: 5, burst: 2 },
      concurrency: 3,
      timeoutMs: 2000,
      retry: { delaysMs: [100, 200], maxAttempts: 3, maxAgeMs: 60_000, jitter: 0 },
      start: '2026-01-01T00:00:00Z',
      ordering: 'key',
      secret: { env: 'HOOKSTREAM_SECRET_BILLING' },
      headers: { 'X-Tenant': 'acme' },
      allowPrivateNetwork: true,
    });
    expect(r.ok).toBe(true);
  });

  it.each([
    [{ name: 'billing' }, 'url'],
    [{ url: 'https://x.example' }, 'name'],
    [{ ...minimal, url: 'ftp://x.example/' }, 'url'],
    [{ ...minimal, rate: { perSecond: 0 } }, 'rate.perSecond'],
    [{ ...minimal, rate: { burst: 1 } }, 'rate.perSecond'],
    [{ ...minimal, concurrency: 1.5 }, 'concurrency'],
    [{ ...minimal, eventTypes: ['Shipment Updated'] }, 'eventTypes.0'],
    [{ ...minimal, eventTypes: [] }, 'eventTypes'],
    [{ ...minimal, retry: { delaysMs: [-1] } }, 'retry.delaysMs.0'],
    [{ ...minimal, retry: { jitter: 2 } }, 'retry.jitter'],
    // Past 2^31 - 1 ms a Node timer fires at once: a 30-day delay would retry immediately.
    [{ ...minimal, retry: { delaysMs: [1000, 30 * 86_400_000] } }, 'retry.delaysMs.1'],
    [{ ...minimal, headers: { 'X-Team': 'a\r\nX-Injected: 1' } }, 'headers.X-Team'],
    [{ ...minimal, headers: { 'X-Team': 'a\nb' } }, 'headers.X-Team'],
    [{ ...minimal, headers: { 'X-Team': 'a\u0000b' } }, 'headers.X-Team'],
    [{ ...minimal, headers: { 'X-Te\r\nam': 'a' } }, 'headers.X-Te\r\nam'],
    [{ ...minimal, headers: { 'Transfer-Encoding': 'chunked' } }, 'headers.Transfer-Encoding'],
    [{ ...minimal, headers: { 'Content-Length': '0' } }, 'headers.Content-Length'],
    [{ ...minimal, headers: { Host: 'internal' } }, 'headers.Host'],
    [{ ...minimal, headers: { Connection: 'close' } }, 'headers.Connection'],
    [{ ...minimal, headers: { Upgrade: 'h2c' } }, 'headers.Upgrade'],
    [{ ...minimal, headers: { 'X-Token': { env: 'not a name' } } }, 'headers.X-Token.env'],
    [{ ...minimal, headers: { 'X-Token': { managed: false } } }, 'headers.X-Token'],
    [{ ...minimal, headers: { 'X-Token': { file: '/etc/passwd' } } }, 'headers.X-Token'],
    [{ ...minimal, start: 'yesterday' }, 'start'],
    [{ ...minimal, ordering: 'sideways' }, 'ordering'],
    [{ ...minimal, allowPrivateNetwork: 'yes' }, 'allowPrivateNetwork'],
    [{ ...minimal, headers: { 'webhook-signature': 'x' } }, 'headers.webhook-signature'],
    [{ ...minimal, secret: 'whsec_abc' }, 'secret'],
  ])('names the field of a wrong value: %j', (input, field) => {
    expect(errorOf(input)).toMatch(new RegExp(`(^|; )${field.replace('.', '\\.')}: `));
  });

  it('a header value may name a HOOKSTREAM_HEADER_ variable, or be managed, instead of holding the credential', () => {
    const headers = { Authorization: { env: 'HOOKSTREAM_HEADER_BILLING_TOKEN' }, 'X-Key': { managed: true } };
    const r = parseSubscriberDefinition({ ...minimal, headers });
    expect(r.ok && r.value.headers).toEqual(headers);
    expect(r.ok && managedHeaderNames(r.value)).toEqual(['X-Key']);
  });

  // The fleet's own settings (its secrets key above all) must never reach a request to a URL
  // that whoever writes the catalog chose.
  it.each([
    ['headers', 'HOOKSTREAM_SECRETS_KEY'],
    ['headers', 'KAFKA_SASL_PASSWORD'],
    ['headers', 'HOOKSTREAM_SECRET_BILLING'],
    ['headers', 'HOOKSTREAM_HEADER_'],
    ['secret', 'HOOKSTREAM_SECRETS_KEY'],
    ['secret', 'AWS_SECRET_ACCESS_KEY'],
    ['secret', 'HOOKSTREAM_HEADER_TOKEN'],
    ['secret', 'HOOKSTREAM_SECRET_'],
  ])('refuses %s naming %s, naming the field and the prefix', (field, variable) => {
    const input =
      field === 'secret'
        ? { ...minimal, secret: { env: variable } }
        : { ...minimal, headers: { 'X-Leak': { env: variable } } };
    const prefix = field === 'secret' ? SECRET_ENV_PREFIX : HEADER_ENV_PREFIX;
    const where = field === 'secret' ? 'secret.env' : 'headers.X-Leak.env';
    expect(errorOf(input)).toBe(
      `${where}: may name only a variable starting with ${prefix} (a definition cannot read the process's own settings or secrets), not "${variable}"`,
    );
  });

  it('names unknown fields, also nested ones', () => {
    expect(errorOf({ ...minimal, colour: 'red' })).toContain('unknown field "colour"');
    expect(errorOf({ ...minimal, rate: { perSecond: 1, per_second: 2 } })).toContain(
      'unknown field "per_second" in rate',
    );
    expect(errorOf({ ...minimal, secret: { env: 'X', value: 'whsec_x' } })).toMatch(/secret/);
  });
});

describe('acceptsEventType', () => {
  it.each([
    { eventTypes: ['*'], type: 'shipment.updated', accepts: true },
    { eventTypes: ['shipment.updated'], type: 'shipment.updated', accepts: true },
    { eventTypes: ['key.revoked', 'shipment.updated'], type: 'shipment.updated', accepts: true },
    { eventTypes: ['key.revoked'], type: 'shipment.updated', accepts: false },
    // Names match exactly: no prefixes or patterns besides '*'.
    { eventTypes: ['shipment'], type: 'shipment.updated', accepts: false },
  ])('$eventTypes takes $type: $accepts', ({ eventTypes, type, accepts }) => {
    expect(acceptsEventType({ eventTypes }, type)).toBe(accepts);
  });
});
