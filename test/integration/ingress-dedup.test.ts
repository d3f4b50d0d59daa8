import type { RunningIngress } from '@hookstream/ingress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startTestIngress, TOKENS } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { endOffsetTotal, readRecords } from '../support/topic.ts';

const shipment = { type: 'shipment.updated', data: { shipment: { id: 'shp-1', status: 'in_transit' } } };
const revoked = { type: 'key.revoked', data: { tenant_id: 't', key_id: 'k' } };

describe('the ingress duplicate window, per token', () => {
  const topic = uniqueName('ingress-dedup');
  let ingress: RunningIngress;
  let events: string;

  beforeAll(async () => {
    // Two tokens share 20 ids: ten each.
    ingress = await startTestIngress(topic, { INGRESS_DEDUP_MAX_ENTRIES: '20' });
    events = `${ingress.url}/v1/events`;
  });
  afterAll(() => ingress.close());

  it("a noisy token's many ids cannot evict another token's claim: its retry is still a duplicate", async () => {
    const quietId = uniqueName('evt-quiet');
    const first = await post(events, { ...revoked, id: quietId }, { token: TOKENS.keysOnly });
    expect(first.status).toBe(202);
    // Three times the whole window, from the other token.
    const noisyIds = Array.from({ length: 60 }, () => uniqueName('evt-noisy'));
    const batch = await post(`${events}/batch`, { events: noisyIds.map((id) => ({ ...shipment, id })) });
    expect(batch.status).toBe(202);

    const retry = await post(events, { ...revoked, id: quietId }, { token: TOKENS.keysOnly });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ ...(first.body as object), duplicate: true });
    // The noisy token's share is bounded: its oldest id was forgotten, so sending it again writes.
    const noisyAgain = await post(events, { ...shipment, id: noisyIds[0] });
    expect(noisyAgain.status).toBe(202);

    const total = await endOffsetTotal(topic);
    expect(total).toBe(1 + 60 + 1);
    const records = await readRecords(topic, total);
    expect(records.filter((r) => r.headers.ce_id === quietId)).toHaveLength(1);
  }, 60_000);
});
