import { randomBytes } from 'node:crypto';
import { parseSecretsKey, recordDigest } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { type Caller, ManagementError, ManagementService } from '../src/index.ts';
import { fakePorts, record } from './fake-ports.ts';

const acme: Caller = { scope: { kind: 'tenant', tenant: 'acme' }, id: 'tok-acme' };
const operator: Caller = { scope: { kind: 'operator' }, id: 'tok-op' };

/** A service whose fake catalog holds `m`, acme's subscriber with a managed secret. */
async function withManagedSecret() {
  const fake = fakePorts([record('plain', 'acme')]);
  const ports = { ...fake.ports, secretsKey: parseSecretsKey(randomBytes(32).toString('base64'), 'test') };
  const service = new ManagementService(ports);
  await service.putSubscriber(acme, 'm', { url: 'https://m.example.com/hook', secret: { managed: true } });
  fake.audit.length = 0;
  return { ...fake, ports, service };
}

describe('a secret read is attributable', () => {
  it('writes subscriber.secret_read naming the caller and the subscriber, never the secret; before = after', async () => {
    const { service, audit, subscribers } = await withManagedSecret();
    const shown = await service.revealSecret(acme, 'm');
    expect(shown.current).toMatch(/^whsec_/);
    expect(audit).toHaveLength(1);
    const [read] = audit;
    expect(read).toMatchObject({
      action: 'subscriber.secret_read',
      subscriber: 'm',
      tenant: 'acme',
      actor: { kind: 'token', tokenId: 'tok-acme', tenant: 'acme' },
      detail: { createdAt: shown.createdAt, previous: 0 },
    });
    // A read changes nothing: the chain of digests goes through it unbroken.
    const digest = recordDigest(subscribers.get('m'));
    expect([read?.before, read?.after]).toEqual([digest, digest]);
    expect(JSON.stringify(audit)).not.toContain(shown.current);
  });

  it('shows nothing when its audit record cannot be written: kafka_unavailable (503), worth retrying', async () => {
    const { ports, audit } = await withManagedSecret();
    const service = new ManagementService({
      ...ports,
      audit: {
        write: async () => {
          throw new Error('hookstream.audit: no leader');
        },
      },
    });
    const err = await service.revealSecret(operator, 'm').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManagementError);
    const failure = err as ManagementError;
    expect([failure.code, failure.status, failure.canRetry]).toEqual(['kafka_unavailable', 503, true]);
    expect(failure.message).toContain('"m" is not shown');
    expect(failure.message).toContain('no leader');
    expect(audit).toEqual([]);
  });

  it('writes nothing for a read it refuses (not managed, another tenant)', async () => {
    const { service, audit } = await withManagedSecret();
    const globex: Caller = { scope: { kind: 'tenant', tenant: 'globex' }, id: 'tok-globex' };
    for (const [caller, name] of [
      [acme, 'plain'],
      [globex, 'm'],
    ] as const)
      await expect(service.revealSecret(caller, name)).rejects.toBeInstanceOf(ManagementError);
    expect(audit).toEqual([]);
  });
});
