import { randomBytes } from 'node:crypto';
import { SubscriberDefinition, type SubscriberRecord } from '@hookstream/contracts';
import type { SealBinding } from '../src/secret-box.ts';
import { parseSecretsKey } from '../src/secrets-key.ts';

export const NOW = new Date('2026-06-01T12:00:00.000Z');

export function newKey() {
  return parseSecretsKey(randomBytes(32).toString('base64'), 'test key');
}

export function definition(name: string, extra: Record<string, unknown> = {}): SubscriberDefinition {
  return SubscriberDefinition.parse({ name, url: `https://${name}.example.com/hook`, ...extra });
}

export function record(name: string, extra: Partial<SubscriberRecord> = {}): SubscriberRecord {
  return {
    version: 2,
    definition: definition(name),
    state: { kind: 'active' },
    createdAt: '2026-05-01T00:00:00.000Z',
    updatedAt: '2026-05-01T00:00:00.000Z',
    ...extra,
  };
}

export function raw(key: string | null, value: unknown, offset?: string) {
  return {
    key,
    value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    ...(offset === undefined ? {} : { offset }),
  };
}

/** The binding of `record(name)`'s seals (its URL is https://<name>.example.com/hook). */
export function binding(name: string, version: 1 | 2 = 2): SealBinding {
  return { version, subscriber: name, origin: `https://${name}.example.com` };
}
