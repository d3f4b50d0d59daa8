import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../src/errors.ts';
import { parseSigningSecret, signPayload, signPayloadWithKeys } from '../src/signing.ts';

describe('Standard Webhooks signing', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('produces a signature the standardwebhooks library verifies', () => {
    const body = JSON.stringify({ event_id: 'evt-1', amount: 3 });
    const ts = Math.floor(Date.now() / 1000);
    const signature = signPayload(parseSigningSecret(secret), 'evt-1', ts, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(body, {
      'webhook-id': 'evt-1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signature,
    });
    expect(verified).toEqual({ event_id: 'evt-1', amount: 3 });
  });

  it('produces a signature the library rejects when the body changed', () => {
    const ts = Math.floor(Date.now() / 1000);
    const signature = signPayload(parseSigningSecret(secret), 'evt-1', ts, '{"a":1}');
    expect(() =>
      new Webhook(secret).verify('{"a":2}', {
        'webhook-id': 'evt-1',
        'webhook-timestamp': String(ts),
        'webhook-signature': signature,
      }),
    ).toThrow();
  });

  it('accepts the key without the whsec_ prefix too', () => {
    expect(parseSigningSecret(secret.slice(6))).toEqual(parseSigningSecret(secret));
  });

  it.each(['whsec_', 'whsec_not base64!', `whsec_${randomBytes(8).toString('base64')}`])(
    'refuses %j',
    (bad) => {
      expect(() => parseSigningSecret(bad)).toThrow(DeliveryError);
    },
  );

  describe('with several keys (a rotation)', () => {
    const next = `whsec_${randomBytes(24).toString('base64')}`;
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const body = '{"event_id":"evt-2"}';
    const ts = Math.floor(Date.now() / 1000);
    const header = signPayloadWithKeys(
      [parseSigningSecret(next), parseSigningSecret(secret)],
      'evt-2',
      ts,
      body,
    );
    const headers = { 'webhook-id': 'evt-2', 'webhook-timestamp': String(ts), 'webhook-signature': header };

    it('joins one v1 signature per key with a space, the first key first', () => {
      const parts = header.split(' ');
      expect(parts).toEqual([
        signPayload(parseSigningSecret(next), 'evt-2', ts, body),
        signPayload(parseSigningSecret(secret), 'evt-2', ts, body),
      ]);
    });

    it.each([
      ['the new secret', next],
      ['the previous secret', secret],
    ])('a receiver holding %s verifies it', (_label, held) => {
      expect(new Webhook(held).verify(body, headers)).toEqual({ event_id: 'evt-2' });
    });

    it('a receiver holding neither refuses it', () => {
      expect(() => new Webhook(other).verify(body, headers)).toThrow();
    });

    it('one key gives exactly the single-key signature', () => {
      const key = parseSigningSecret(secret);
      expect(signPayloadWithKeys([key], 'evt-2', ts, body)).toBe(signPayload(key, 'evt-2', ts, body));
    });

    it('refuses an empty key list rather than send an unsigned request', () => {
      expect(() => signPayloadWithKeys([], 'evt-2', ts, body)).toThrow(RangeError);
    });
  });
});
