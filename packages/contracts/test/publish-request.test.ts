import { describe, expect, it } from 'vitest';
import { PublishBatchRequest, PublishRequest } from '../src/publish-request.ts';

describe('PublishRequest', () => {
  const valid = { type: 'key.revoked', data: { tenant_id: 't', key_id: 'k' } };

  it('takes type and data, with optional id, key and occurred_at', () => {
    expect(PublishRequest.parse(valid)).toEqual(valid);
    const full = {
      ...valid,
      id: 'evt-1',
      key: 'tenant-t',
      occurred_at: '2026-11-30T10:00:00+01:00',
      tenant: 'acme.eu-1:prod_2',
    };
    expect(PublishRequest.parse(full)).toEqual(full);
    expect(PublishRequest.safeParse({ ...valid, tenant: 'a'.repeat(100) }).success).toBe(true);
  });

  it.each([
    [{ ...valid, id: 'has space' }, ['id']],
    [{ ...valid, key: '' }, ['key']],
    [{ ...valid, occurred_at: 'now' }, ['occurred_at']],
    [{ ...valid, tenant: '' }, ['tenant']],
    [{ ...valid, tenant: 'acme corp' }, ['tenant']],
    [{ ...valid, tenant: 'a'.repeat(101) }, ['tenant']],
    [{ ...valid, tenant: 7 }, ['tenant']],
    [{ ...valid, data: [] }, ['data']],
    [{ ...valid, type: 'NotDotted' }, ['type']],
    [{ ...valid, extra: 1 }, []],
  ])('rejects %j naming the path', (body, path) => {
    expect(PublishRequest.safeParse(body).error?.issues[0]?.path).toEqual(path);
  });
});

describe('PublishBatchRequest', () => {
  it('wants between 1 and 500 events', () => {
    expect(PublishBatchRequest.safeParse({ events: [] }).success).toBe(false);
    expect(PublishBatchRequest.safeParse({ events: new Array(501).fill({}) }).success).toBe(false);
    expect(PublishBatchRequest.safeParse({ events: [{}] }).success).toBe(true);
  });
});
