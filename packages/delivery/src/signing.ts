import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { DeliveryError } from './errors.ts';

const PREFIX = 'whsec_';

/**
 * Decodes a Standard Webhooks secret (`whsec_` + base64 of the key bytes, the convention the
 * subscriber's verifying library expects) into the HMAC key.
 */
export function parseSigningSecret(secret: string): Buffer {
  const text = secret.trim();
  const encoded = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : text;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded))
    throw new DeliveryError('BAD_SECRET', 'the signing secret must be "whsec_" followed by base64', false);
  const key = Buffer.from(encoded, 'base64');
  if (key.length < 16)
    throw new DeliveryError('BAD_SECRET', 'the signing secret must carry at least 16 bytes of key', false);
  return key;
}

/**
 * The key as Node's HMAC takes it fastest: createHmac with a raw Buffer re-imports the key on
 * every call (several times the cost of the HMAC itself), with a KeyObject it does not.
 */
export function hmacKey(key: Buffer): KeyObject {
  return createSecretKey(key);
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (Standard Webhooks, symmetric). */
export function signPayload(
  key: Buffer | KeyObject,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Signs with each key and joins the signatures with spaces (`v1,<a> v1,<b>`), as Standard
 * Webhooks allows: during a secret rotation's grace period a receiver holding either the new or
 * the previous secret verifies the request. The first key is the current one.
 */
export function signPayloadWithKeys(
  keys: readonly (Buffer | KeyObject)[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  if (keys.length === 0) throw new RangeError('signPayloadWithKeys needs at least one key');
  return keys.map((key) => signPayload(key, id, timestampSeconds, body)).join(' ');
}
