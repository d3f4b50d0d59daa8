import { randomBytes } from 'node:crypto';
import { KafkaReadError } from '@hookstream/kafka';
import { CatalogError, parseSecretsKey, withHeaderValue } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import {
  type Caller,
  ManagementError,
  ManagementService,
  managementErrorOf,
  parseTenantQuotaList,
} from '../src/index.ts';
import { fakePorts, record } from './fake-ports.ts';

const operator: Caller = { scope: { kind: 'operator' }, id: 'tok-op' };
const acme: Caller = { scope: { kind: 'tenant', tenant: 'acme' }, id: 'tok-acme' };

async function failure(work: Promise<unknown>): Promise<ManagementError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ManagementError);
  return err as ManagementError;
}

function setup() {
  const fake = fakePorts([record('a-acme', 'acme'), record('b-globex', 'globex'), record('c-none')]);
  return { ...fake, service: new ManagementService(fake.ports) };
}

describe('the tenant policy', () => {
  it("lets a tenant's subscriber reach a private address only when the operator allows it for every tenant", async () => {
    const closed = setup();
    const refused = await failure(
      closed.service.putSubscriber(acme, 'x', { url: 'http://127.0.0.1:9/hook' }),
    );
    expect(refused.code).toBe('invalid_definition');
    const fake = fakePorts([]);
    const open = new ManagementService({ ...fake.ports, tenantPolicy: { privateNetwork: true } });
    const made = await open.putSubscriber(acme, 'x', { url: 'http://127.0.0.1:9/hook' });
    expect(made.action).toBe('created');
    expect(fake.writes.flat()[0]?.definition.allowPrivateNetwork).toBe(true);
    // The policy's own value round-trips: a GET's definition PUT back is not an operator-only field.
    const again = await open.putSubscriber(acme, 'x', { ...made.subscriber.definition });
    expect(again.action).toBe('unchanged');
    const env = await failure(
      open.putSubscriber(acme, 'y', { url: 'http://127.0.0.1:9/', allowInsecureHttp: true }),
    );
    expect(env.code).toBe('forbidden_field');
  });
});

describe('tenant isolation', () => {
  it("lists, reads and changes only its own subscribers; another tenant's is not_found (404), untouched", async () => {
    const { service, writes, deletes, rewinds } = setup();
    const list = await service.listSubscribers(acme, { limit: 100 });
    expect(list.items.map((i) => i.name)).toEqual(['a-acme']);
    expect(list.items[0]).toMatchObject({ tenant: 'acme', lag: 7, retentionHeadroomSeconds: 'unbounded' });
    for (const attempt of [
      service.getSubscriber(acme, 'b-globex'),
      service.changeState(acme, 'b-globex', { action: 'pause' }),
      service.deleteSubscriber(acme, 'b-globex', { purge: true }),
      service.deadLetters(acme, 'b-globex', { eventIds: [], reasons: [], statuses: [] }),
      service.replay(acme, 'b-globex', {
        selection: { eventIds: [], reasons: [], statuses: [] },
        dryRun: false,
        again: false,
      }),
      service.rotateSecret(acme, 'c-none'),
      service.rewind(acme, 'b-globex', { to: 'earliest', dryRun: true }),
      service.revealSecret(acme, 'b-globex'),
    ]) {
      const err = await failure(attempt);
      expect([err.code, err.status]).toEqual(['not_found', 404]);
    }
    expect(writes).toEqual([]);
    expect(deletes).toEqual([]);
    expect(rewinds).toEqual([]);
  });

  it('creates for its own tenant only, without operator-only fields', async () => {
    const { service, writes } = setup();
    const other = await failure(
      service.putSubscriber(acme, 'x', { url: 'https://x.example.com/', tenant: 'globex' }),
    );
    expect([other.code, other.status]).toEqual(['forbidden_tenant', 403]);
    const priv = await failure(
      service.putSubscriber(acme, 'x', {
        url: 'https://x.example.com/',
        allowPrivateNetwork: true,
        allowInsecureHttp: true,
        headers: { 'x-key': { env: 'HOOKSTREAM_HEADER_KEY' } },
        secret: { env: 'HOOKSTREAM_SECRET_X' },
      }),
    );
    expect([priv.code, priv.status]).toEqual(['forbidden_field', 422]);
    expect(priv.details.map((d) => d.path)).toEqual([
      'allowPrivateNetwork',
      'allowInsecureHttp',
      'secret',
      'headers.x-key',
    ]);
    // Outbound credentials: managed ones only, as the signing secret.
    const auth = await failure(
      service.putSubscriber(acme, 'x', {
        url: 'https://x.example.com/',
        oauth2: {
          tokenUrl: 'https://auth.example.com/token',
          clientId: 'x',
          clientSecret: { env: 'HOOKSTREAM_OAUTH_X' },
        },
        clientCertificate: {
          cert: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
          key: { env: 'HOOKSTREAM_CLIENT_KEY_X' },
        },
      }),
    );
    expect([auth.code, auth.status]).toEqual(['forbidden_field', 422]);
    expect(auth.details.map((d) => d.path)).toEqual(['oauth2.clientSecret', 'clientCertificate.key']);
    expect(writes).toEqual([]);
    const made = await service.putSubscriber(acme, 'x', { url: 'https://x.example.com/' });
    expect(made.action).toBe('created');
    expect(made.subscriber.definition.tenant).toBe('acme');
    const managed = await service.putSubscriber(acme, 'y', {
      url: 'https://y.example.com/',
      oauth2: {
        tokenUrl: 'https://auth.example.com/token',
        clientId: 'y',
        clientSecret: { managed: true },
      },
    });
    expect(managed.action).toBe('created');
  });

  it('answers name_unavailable (409) for a name another tenant holds, live or left bound', async () => {
    const fake = fakePorts([record('b-globex', 'globex')], { gone: 'globex' });
    const service = new ManagementService(fake.ports);
    for (const name of ['b-globex', 'gone']) {
      const err = await failure(service.putSubscriber(acme, name, { url: 'https://x.example.com/' }));
      expect([err.code, err.status]).toEqual(['name_unavailable', 409]);
    }
    expect(fake.writes).toEqual([]);
  });

  it('reads the audit trail and an event ledger of its own tenant only', async () => {
    const { service } = setup();
    await service.putSubscriber(operator, 'made-by-op', { url: 'https://y.example.com/', tenant: 'globex' });
    await service.putSubscriber(acme, 'made-by-acme', { url: 'https://y.example.com/' });
    expect((await service.audit(acme, { limit: 10 })).map((r) => r.subscriber)).toEqual(['made-by-acme']);
    expect((await service.ledger(acme, 'e1')).counts).toEqual({});
    const globex: Caller = { scope: { kind: 'tenant', tenant: 'globex' }, id: 'tok-g' };
    expect((await failure(service.ledger(globex, 'e1'))).code).toBe('not_found');
    expect((await service.eventTypes(acme))[0]?.subscribers).toEqual(['a-acme', 'made-by-acme']);
  });

  it("tells the ledger query where a tenant's indexed message is, and nothing for the operator or an unindexed event", async () => {
    const { service, index, ledgerOrigins } = setup();
    const where = { topic: 'events', partition: 2, offset: '40' };
    index.origins.set('acme/e1', where);
    await service.ledger(acme, 'e1');
    await service.ledger(acme, 'e2');
    await service.ledger(operator, 'e1');
    expect(ledgerOrigins).toEqual([where, undefined, undefined]);
  });
});

describe('writes', () => {
  it('PUT is idempotent: created (one write, one audit record), then unchanged, with the same ETag', async () => {
    const { service, writes, audit } = setup();
    const body = { url: 'https://new.example.com/hook', eventTypes: ['order.created'] };
    const first = await service.putSubscriber(operator, 'new-one', body);
    const second = await service.putSubscriber(operator, 'new-one', body);
    expect([first.action, second.action]).toEqual(['created', 'unchanged']);
    expect(second.subscriber.etag).toBe(first.subscriber.etag);
    expect(writes).toHaveLength(1);
    expect(audit.map((a) => [a.action, a.actor])).toEqual([
      ['subscriber.created', { kind: 'token', tokenId: 'tok-op' }],
    ]);
  });

  it("commits a new subscriber's start before its record is written, once; a failure writes nothing", async () => {
    const { service, writes, starts, failStart } = setup();
    const body = { url: 'https://new.example.com/hook' };
    failStart.next = new KafkaReadError('KAFKA_UNAVAILABLE', 'the broker is away');
    expect((await failure(service.putSubscriber(operator, 'new-one', body))).code).toBe('kafka_unavailable');
    expect(writes).toEqual([]);
    await service.putSubscriber(operator, 'new-one', body);
    await service.putSubscriber(operator, 'new-one', { ...body, url: 'https://new.example.com/v2' });
    expect(starts).toEqual(['new-one']);
    expect(writes).toHaveLength(2);
  });

  it('refuses at PUT a token URL or URL that aims at a private address, for a tenant and the operator; nothing is written', async () => {
    const { service, writes } = setup();
    const oauth2 = {
      tokenUrl: 'https://127.0.0.1:8443/token',
      clientId: 'x',
      clientSecret: { managed: true },
    };
    for (const caller of [acme, operator]) {
      const bad = await failure(
        service.putSubscriber(caller, 'aimed', { url: 'https://h.example.com/', oauth2 }),
      );
      expect([bad.code, bad.status, bad.details.map((d) => d.path)]).toEqual([
        'invalid_definition',
        422,
        ['oauth2.tokenUrl'],
      ]);
    }
    const url = await failure(service.putSubscriber(operator, 'aimed', { url: 'https://[::1]/hook' }));
    expect(url.details.map((d) => d.path)).toEqual(['url']);
    expect(writes).toEqual([]);
  });

  it("a tenant's move to a new origin drops the operator's sealed header and names it; the operator's move seals it again", async () => {
    const key = parseSecretsKey(randomBytes(32).toString('base64'), 'the test key');
    const base = record('h-acme', 'acme');
    const withHeader = {
      ...base,
      definition: { ...base.definition, headers: { 'X-Key': { managed: true as const } } },
    };
    const sealed = withHeaderValue(withHeader, key, 'X-Key', 'k-1', new Date());
    const body = { url: 'https://elsewhere.example.net/hook', headers: { 'X-Key': { managed: true } } };
    const tenant = fakePorts([sealed]);
    const moved = await new ManagementService({ ...tenant.ports, secretsKey: key }).putSubscriber(
      acme,
      'h-acme',
      body,
    );
    expect(moved.droppedSeals).toEqual(['headers.X-Key']);
    expect(tenant.writes.flat()[0]?.sealedHeaders).toBeUndefined();
    const op = fakePorts([sealed]);
    const kept = await new ManagementService({ ...op.ports, secretsKey: key }).putSubscriber(
      operator,
      'h-acme',
      {
        ...body,
        tenant: 'acme',
      },
    );
    expect(kept.droppedSeals).toEqual([]);
    expect(Object.keys(op.writes.flat()[0]?.sealedHeaders ?? {})).toEqual(['X-Key']);
  });

  it("a tenant's subscribers stop at its quota (409 quota_exceeded, nothing written); updates and the operator are not counted", async () => {
    const fake = fakePorts([record('a-acme', 'acme')]);
    const service = new ManagementService({
      ...fake.ports,
      tenantQuotas: { maxSubscribers: 5, byTenant: { acme: 2 } },
    });
    await service.putSubscriber(acme, 'b-acme', { url: 'https://b.example.com/' });
    const over = await failure(service.putSubscriber(acme, 'c-acme', { url: 'https://c.example.com/' }));
    expect([over.code, over.status, over.canRetry]).toEqual(['quota_exceeded', 409, false]);
    expect(fake.subscribers.has('c-acme')).toBe(false);
    expect((await service.putSubscriber(acme, 'b-acme', { url: 'https://b.example.com/v2' })).action).toBe(
      'changed',
    );
    expect(
      (await service.putSubscriber(operator, 'c-acme', { url: 'https://c.example.com/', tenant: 'acme' }))
        .action,
    ).toBe('created');
    expect(() => parseTenantQuotaList('acme=2,globex=x')).toThrow(/globex=x/);
    expect(parseTenantQuotaList(' acme=2 , globex=0 ')).toEqual({ acme: 2, globex: 0 });
  });

  it('refuses a body naming another subscriber, and an invalid one, field by field', async () => {
    const { service } = setup();
    expect(
      (await failure(service.putSubscriber(operator, 'n', { name: 'm', url: 'https://x.example.com' }))).code,
    ).toBe('invalid_definition');
    const bad = await failure(service.putSubscriber(operator, 'n', { url: 'ftp://x', concurrency: 0 }));
    expect(bad.status).toBe(422);
    expect(bad.details.map((d) => d.path).sort()).toEqual(['concurrency', 'url']);
  });

  it('honours If-Match: the current ETag or * passes, a stale one is precondition_failed (412)', async () => {
    const { service, writes } = setup();
    const { etag } = await service.getSubscriber(operator, 'a-acme');
    const stale = await failure(
      service.putSubscriber(operator, 'a-acme', { url: 'https://z.example.com/', tenant: 'acme' }, '"9999"'),
    );
    expect([stale.code, stale.status]).toEqual(['precondition_failed', 412]);
    expect(
      (await failure(service.deleteSubscriber(operator, 'a-acme', { purge: false, ifMatch: '"9999"' })))
        .status,
    ).toBe(412);
    expect(writes).toEqual([]);
    const changed = await service.putSubscriber(
      operator,
      'a-acme',
      { url: 'https://z.example.com/', tenant: 'acme' },
      `"x", ${etag}`,
    );
    expect(changed.action).toBe('changed');
    expect(changed.subscriber.etag).not.toBe(etag);
    // The ETag it answered is the one in effect: the next conditional write takes it, the old one not.
    expect((await service.getSubscriber(operator, 'a-acme')).etag).toBe(changed.subscriber.etag);
    expect(
      (await failure(service.deleteSubscriber(operator, 'a-acme', { purge: false, ifMatch: etag }))).status,
    ).toBe(412);
    await service.deleteSubscriber(operator, 'a-acme', { purge: false, ifMatch: changed.subscriber.etag });
  });

  it('refuses a filter that could never hold, as apply does (a pointer no schema of its types has)', async () => {
    const { service, writes } = setup();
    const refused = await failure(
      service.putSubscriber(operator, 'filtered', {
        url: 'https://f.example.com/',
        eventTypes: ['shipment.updated'],
        filter: { exact: { '/shipment/colour': 'red' } },
      }),
    );
    expect([refused.code, refused.status]).toEqual(['invalid_definition', 422]);
    expect(writes).toEqual([]);
  });

  it('refuses a rule across fields (maxHoldMs without strict order, fairness with a tenant) as 422, writing nothing', async () => {
    const { service, writes } = setup();
    const hold = await failure(
      service.putSubscriber(operator, 'x', {
        url: 'https://x.example.com/',
        ordering: 'key',
        maxHoldMs: 5000,
      }),
    );
    expect([hold.code, hold.status, hold.details]).toEqual([
      'invalid_definition',
      422,
      [{ path: 'maxHoldMs', message: 'only with "ordering": "strict"' }],
    ]);
    const fair = await failure(
      service.putSubscriber(acme, 'y', { url: 'https://y.example.com/', fairness: 'tenant' }),
    );
    expect([fair.code, fair.details[0]?.path]).toEqual(['invalid_definition', 'fairness']);
    expect(writes).toEqual([]);
  });

  it('an If-Match of * needs a record; a create names none', async () => {
    const { service } = setup();
    expect(
      (await failure(service.putSubscriber(operator, 'brand-new', { url: 'https://n.example.com/' }, '*')))
        .status,
    ).toBe(412);
  });

  it('pauses with the token as who, recorded in the trail', async () => {
    const { service, audit } = setup();
    const paused = await service.changeState(acme, 'a-acme', { action: 'pause', reason: 'upgrade' });
    expect(paused).toMatchObject({
      changed: true,
      state: { kind: 'paused', by: 'tok-acme', reason: 'upgrade' },
    });
    expect(audit.map((a) => [a.action, a.tenant, a.actor])).toEqual([
      ['subscriber.paused', 'acme', { kind: 'token', tokenId: 'tok-acme', tenant: 'acme' }],
    ]);
  });

  it('rewinds its own subscriber on the events topic, naming the token; a bad --to moves nothing', async () => {
    const { service, rewinds } = setup();
    const bad = await failure(service.rewind(acme, 'a-acme', { to: 'yesterday', dryRun: false }));
    expect([bad.code, bad.status]).toEqual(['invalid_request', 400]);
    expect(rewinds).toEqual([]);
    const result = await service.rewind(acme, 'a-acme', { to: '0:4', dryRun: false });
    expect(result).toMatchObject({ name: 'a-acme', applied: true, plan: { resend: 6 } });
    expect(rewinds.map((r) => [r.request.eventsTopic, r.request.by, r.request.targetText, r.actor])).toEqual([
      ['events', 'tok-acme', '0:4', { kind: 'token', tokenId: 'tok-acme', tenant: 'acme' }],
    ]);
  });

  it('refuses to rotate a secret that is not managed (not_managed)', async () => {
    const fake = fakePorts([{ ...record('m', 'acme'), secret: { env: 'HOOKSTREAM_SECRET_M' } }]);
    const service = new ManagementService(fake.ports);
    expect((await failure(service.rotateSecret(acme, 'm'))).code).toBe('not_managed');
    expect((await failure(service.revealSecret(acme, 'm'))).code).toBe('not_managed');
  });
});

describe('pagination', () => {
  it('pages by name with an opaque cursor, and refuses a forged one or a limit out of bounds', async () => {
    const fake = fakePorts(['d', 'a', 'c', 'b', 'e'].map((n) => record(n)));
    const service = new ManagementService(fake.ports);
    const names: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await service.listSubscribers(operator, { limit: 2, cursor });
      names.push(...page.items.map((p) => p.name));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(names).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await failure(service.listSubscribers(operator, { limit: 2, cursor: 'nope!' }))).code).toBe(
      'invalid_cursor',
    );
    expect((await failure(service.listSubscribers(operator, { limit: 1001 }))).status).toBe(400);
  });
});

describe('error mapping', () => {
  it('maps the catalog, Kafka and anything else to a code, a status and canRetry', () => {
    expect(managementErrorOf(new CatalogError('UNKNOWN_SUBSCRIBER', 'x', false)).status).toBe(404);
    const kafka = managementErrorOf(new KafkaReadError('KAFKA_UNAVAILABLE', 'away'));
    expect([kafka.code, kafka.status, kafka.canRetry]).toEqual(['kafka_unavailable', 503, true]);
    const other = managementErrorOf(new Error('secret internals'));
    expect([other.code, other.status, other.message]).toEqual(['internal', 500, 'internal error']);
  });
});
