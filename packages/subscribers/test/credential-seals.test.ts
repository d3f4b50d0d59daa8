import { generateKeyPairSync } from 'node:crypto';
import { SubscriberRecord, SubscriberSpec } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { droppedSeals, planApply, recordsForPlan } from '../src/apply-plan.ts';
import { foldRegistry } from '../src/catalog-records.ts';
import { openManagedCredentials, withCredentialValue } from '../src/credential-seals.ts';
import { checkCatalog } from '../src/record-upgrade.ts';
import { definition, NOW, newKey, raw } from './fixtures.ts';

const key = newKey();
const oauth2 = (tokenUrl = 'https://auth.example.com/token') => ({
  tokenUrl,
  clientId: 'hookstream',
  clientSecret: { managed: true },
});
const pemKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function v7(extra: Record<string, unknown> = { oauth2: oauth2() }): SubscriberRecord {
  return {
    version: 7,
    definition: definition('pay', extra),
    state: { kind: 'active' },
    createdAt: '2026-05-01T00:00:00.000Z',
    updatedAt: '2026-05-01T00:00:00.000Z',
  };
}

describe('managed outbound credentials', () => {
  it('seals a client secret and a client key, and opens them for the fleet', () => {
    const declared = v7({ oauth2: oauth2(), clientCertificate: { cert: CERT, key: { managed: true } } });
    expect(() => openManagedCredentials(declared, key)).toThrow(
      expect.objectContaining({ code: 'NO_CREDENTIAL_VALUE' }),
    );
    const sealed = withCredentialValue(
      withCredentialValue(declared, key, 'oauth2.clientSecret', 's3cret', NOW),
      key,
      'clientCertificate.key',
      pemKey,
      NOW,
    );
    expect(SubscriberRecord.safeParse(sealed).success).toBe(true);
    expect(JSON.stringify(sealed)).not.toContain('s3cret');
    expect(openManagedCredentials(sealed, key)).toEqual({
      'oauth2.clientSecret': 's3cret',
      'clientCertificate.key': pemKey,
    });
    expect(() => openManagedCredentials(sealed, undefined)).toThrow(
      expect.objectContaining({ code: 'NO_SECRETS_KEY' }),
    );
  });

  it('refuses what the definition does not manage, and values that are not the credential', () => {
    const envSecret = v7({
      oauth2: { ...oauth2(), clientSecret: { env: 'HOOKSTREAM_OAUTH_PAY' } },
    });
    expect(() => withCredentialValue(envSecret, key, 'oauth2.clientSecret', 'x', NOW)).toThrow(
      expect.objectContaining({ code: 'NOT_MANAGED' }),
    );
    expect(() => withCredentialValue(v7(), key, 'headers.x', 'x', NOW)).toThrow(
      expect.objectContaining({ code: 'NOT_MANAGED' }),
    );
    expect(() => withCredentialValue(v7(), key, 'oauth2.clientSecret', 'a\nb', NOW)).toThrow(
      expect.objectContaining({ code: 'BAD_CREDENTIAL_VALUE' }),
    );
    const withCert = v7({ clientCertificate: { cert: CERT, key: { managed: true } } });
    expect(() => withCredentialValue(withCert, key, 'clientCertificate.key', 'not a key', NOW)).toThrow(
      expect.objectContaining({ code: 'BAD_CREDENTIAL_VALUE' }),
    );
    // A record holding a seal for a credential its definition does not manage is no record.
    const sealed = withCredentialValue(v7(), key, 'oauth2.clientSecret', 's', NOW);
    expect(SubscriberRecord.safeParse({ ...sealed, definition: definition('pay') }).success).toBe(false);
  });

  it('binds the client secret to the token URL: moved by hand it does not open; apply seals it again', () => {
    const sealed = withCredentialValue(v7(), key, 'oauth2.clientSecret', 's3cret', NOW);
    const moved = {
      ...sealed,
      definition: { ...sealed.definition, oauth2: { ...oauth2('https://evil.example.net/token') } },
    } as SubscriberRecord;
    expect(() => openManagedCredentials(moved, key)).toThrow();

    const current = new Map([['pay', sealed]]);
    const spec = SubscriberSpec.parse({
      name: 'pay',
      url: 'https://pay.example.com/hook',
      oauth2: oauth2('https://login.example.org/token'),
    });
    const plan = planApply(current, [{ path: 'pay.json', spec }], NOW);
    expect(() => recordsForPlan(plan, current, { now: NOW, secretsKey: undefined })).toThrow(
      expect.objectContaining({ code: 'NO_SECRETS_KEY' }),
    );
    const [written] = recordsForPlan(plan, current, { now: NOW, secretsKey: key });
    if (written === undefined) throw new Error('nothing written');
    expect(openManagedCredentials(written, key)).toEqual({ 'oauth2.clientSecret': 's3cret' });

    // Unchanged origins keep the seal as it is; a credential no longer managed loses it.
    const scopeOnly = SubscriberSpec.parse({ ...spec, oauth2: { ...spec.oauth2, scope: 'x' } });
    const next = new Map([['pay', written]]);
    const [kept] = recordsForPlan(planApply(next, [{ path: 'pay.json', spec: scopeOnly }], NOW), next, {
      now: NOW,
      secretsKey: undefined,
    });
    expect(kept?.sealedCredentials).toEqual(written.sealedCredentials);
    const envNow = SubscriberSpec.parse({
      ...spec,
      oauth2: { ...spec.oauth2, clientSecret: { env: 'HOOKSTREAM_OAUTH_PAY' } },
    });
    const [dropped] = recordsForPlan(planApply(next, [{ path: 'pay.json', spec: envNow }], NOW), next, {
      now: NOW,
      secretsKey: undefined,
    });
    expect(dropped?.sealedCredentials).toBeUndefined();
  });

  it("a tenant's move of the token URL to a new origin drops the operator's client secret instead of sealing it again", () => {
    const sealed = withCredentialValue(v7(), key, 'oauth2.clientSecret', 's3cret', NOW);
    const current = new Map([['pay', sealed]]);
    const spec = SubscriberSpec.parse({
      name: 'pay',
      url: 'https://pay.example.com/hook',
      oauth2: oauth2('https://login.example.org/token'),
    });
    const [written] = recordsForPlan(planApply(current, [{ path: 'PUT', spec }], NOW), current, {
      now: NOW,
      secretsKey: undefined,
      dropOperatorSealsOnMove: true,
    });
    if (written === undefined) throw new Error('nothing written');
    expect(written.sealedCredentials).toBeUndefined();
    expect(droppedSeals(sealed, written)).toEqual(['oauth2.clientSecret']);
  });

  it('subscribers check names a managed credential without a value', () => {
    const snapshot = foldRegistry([raw('pay', v7())]);
    const check = checkCatalog(snapshot, { secretsKey: key, now: NOW });
    expect(JSON.stringify(check)).toContain('hookstream subscribers credential set pay oauth2.clientSecret');
  });
});
