import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../src/errors.ts';
import { parseSigningSecret, signPayload } from '../src/signing.ts';

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
});
