import { SubscriberDefinition, type SubscriberRecord } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { publicRecord } from '../src/public-record.ts';

describe('publicRecord with outbound auth', () => {
  it('redacts the token URL as it does the URL, and shows only the variables credentials come from', () => {
    const definition = SubscriberDefinition.parse({
      name: 'billing',
      url: 'https://billing.example/hooks',
      oauth2: {
        tokenUrl: 'https://user:pw@auth.example/token?key=abc',
        clientId: 'hookstream',
        clientSecret: { env: 'HOOKSTREAM_OAUTH_BILLING' },
      },
    });
    const record: SubscriberRecord = {
      version: 7,
      definition,
      state: { kind: 'active' },
      createdAt: '2026-12-04T10:00:00Z',
      updatedAt: '2026-12-04T10:00:00Z',
    };
    const shown = JSON.stringify(publicRecord(record));
    expect(shown).not.toContain('pw@');
    expect(shown).not.toContain('abc');
    expect(publicRecord(record).definition.oauth2?.clientSecret).toEqual({ env: 'HOOKSTREAM_OAUTH_BILLING' });
  });
});
