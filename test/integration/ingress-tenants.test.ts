import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CE_HEADER } from '@hookstream/contracts';
import type { RunningIngress } from '@hookstream/ingress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret } from '../support/events.ts';
import { post, startTestIngress, TOKENS } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endOffsetTotal, readRecords } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

const ACME = 'test-token-acme-0123456789';
const GLOBEX = 'test-token-globex-0123456789';
/** Bound in the tokens file, not in INGRESS_TOKENS: both places take the suffix. */
const UMBRELLA = 'test-token-umbrella-0123456789';

const revoked = (id: string) => ({ type: 'key.revoked', id, data: { tenant_id: 't', key_id: id } });

describe('tenants from the ingress to a real receiver, against the real stack', () => {
  const topic = uniqueName('tenants');
  const fx = new KafkaFixture();
  const receivers = new ReceiverPool();
  let ingress: RunningIngress;
  let events: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    const file = join(dir, 'tokens');
    writeFileSync(file, `# the umbrella team\n${UMBRELLA}=key.revoked@umbrella\n`);
    ingress = await startTestIngress(topic, {
      INGRESS_TOKENS: `${TOKENS.all},${ACME}@acme,${GLOBEX}=shipment.updated|key.revoked@globex`,
      INGRESS_TOKENS_FILE: file,
    });
    events = `${ingress.url}/v1/events`;
    await fx.connect();
  });
  afterAll(async () => {
    await ingress.close();
    await fx.close();
    await receivers.closeAll();
  });

  it('refuses an ingress token publishing as another tenant with 403 tenant_forbidden, and writes nothing', async () => {
    await post(events, revoked(uniqueName('first')), { token: ACME }); // the topic exists and holds one
    const before = await endOffsetTotal(topic);
    const one = await post(events, { ...revoked(uniqueName('x')), tenant: 'globex' }, { token: ACME });
    expect([one.status, one.body]).toMatchObject([403, { error: { code: 'tenant_forbidden' } }]);
    // One item of a batch as another tenant: none of the batch is written.
    const batch = await post(
      `${events}/batch`,
      { events: [revoked(uniqueName('ok')), { ...revoked(uniqueName('x')), tenant: 'acme' }] },
      { token: GLOBEX },
    );
    expect([batch.status, batch.body]).toMatchObject([
      403,
      { error: { code: 'invalid_batch', details: [{ index: 1, status: 403, code: 'tenant_forbidden' }] } },
    ]);
    const reserved = await post(events, {
      type: 'key.revoked',
      data: { tenant_id: 't', key_id: 'k', tenant: 'acme' },
    });
    expect([reserved.status, reserved.body]).toMatchObject([400, { error: { code: 'reserved_field' } }]);
    expect(await endOffsetTotal(topic)).toBe(before);
  });

  it('keeps duplicate detection per token: a bound token naming its tenant or not is one event, another tenant a different one', async () => {
    const id = uniqueName('dup');
    expect((await post(events, revoked(id), { token: ACME })).status).toBe(202);
    const before = await endOffsetTotal(topic);
    const again = await post(events, { ...revoked(id), tenant: 'acme' }, { token: ACME });
    expect([again.status, again.body]).toMatchObject([200, { event_id: id, duplicate: true }]);
    // An operator token has its own window: the id is new there, and one tenant then another is a conflict.
    expect((await post(events, { ...revoked(id), tenant: 'acme' })).status).toBe(202);
    const conflict = await post(events, { ...revoked(id), tenant: 'globex' });
    expect([conflict.status, conflict.body]).toMatchObject([409, { error: { code: 'id_conflict' } }]);
    expect(await endOffsetTotal(topic)).toBe(before + 1);
  });

  it('writes each event with its tenant as ce_tenant, and a real receiver gets it as tenant in the signed body', async () => {
    const sent = {
      boundOmitted: { id: uniqueName('acme-omitted'), token: ACME, tenant: undefined, expected: 'acme' },
      boundNamed: { id: uniqueName('acme-named'), token: ACME, tenant: 'acme', expected: 'acme' },
      fileBound: { id: uniqueName('umbrella'), token: UMBRELLA, tenant: undefined, expected: 'umbrella' },
      operatorNamed: { id: uniqueName('op'), token: TOKENS.all, tenant: 'initech', expected: 'initech' },
      none: { id: uniqueName('none'), token: TOKENS.all, tenant: undefined, expected: undefined },
    };
    for (const s of Object.values(sent)) {
      const body = s.tenant === undefined ? revoked(s.id) : { ...revoked(s.id), tenant: s.tenant };
      const answer = await post(events, body, { token: s.token });
      expect([s.id, answer.status]).toEqual([s.id, 202]);
    }
    // A batch of a bound token: every item carries its tenant.
    const batchId = uniqueName('globex-batch');
    const batch = await post(`${events}/batch`, { events: [revoked(batchId)] }, { token: GLOBEX });
    expect(batch.status).toBe(202);
    const expected = new Map<string, string | undefined>([
      ...Object.values(sent).map((s) => [s.id, s.expected] as const),
      [batchId, 'globex'],
    ]);

    const total = await endOffsetTotal(topic);
    const records = await readRecords(topic, total);
    const tenantOf = new Map(records.map((r) => [r.headers[CE_HEADER.id], r.headers[CE_HEADER.tenant]]));
    for (const [id, tenant] of expected) expect([id, tenantOf.get(id)]).toEqual([id, tenant]);
    expect(records.find((r) => r.headers[CE_HEADER.id] === sent.none.id)?.headers).not.toHaveProperty(
      CE_HEADER.tenant,
    );

    const secret = newSecret();
    const endpoint = await receivers.start({ secret });
    const name = uniqueName('tenants');
    await fx.startPusher(topic, { name, url: `${endpoint.url}/hooks` }, secret);
    // Earlier tests wrote here too (one id twice, from two tokens): wait for these events by id.
    await waitFor('every event at the receiver', async () =>
      [...expected.keys()].every((id) => endpoint.arrivals.some((a) => a.eventId === id && a.status === 204))
        ? true
        : undefined,
    );
    expect(endpoint.stats().badSignatures).toBe(0);
    for (const [id, tenant] of expected) {
      const body = endpoint.arrivals.find((a) => a.eventId === id)?.body;
      expect([id, body?.type, body?.tenant]).toEqual([id, 'key.revoked', tenant]);
      if (tenant === undefined) expect(body).not.toHaveProperty('tenant');
    }
    await fx.settledEverything(name, topic);
  });
});
