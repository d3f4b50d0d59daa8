import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { parseEgressProxy } from '@hookstream/delivery';
import { generateTestPki, type TestPki } from '@hookstream/stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEnv, handMadeRecord, produceRegistryRecords, startCatalogFleet } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { ConnectProxy } from '../support/connect-proxy.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

// Issue 28 item 5 (outbound auth) on the real stack: a pusher fetches an OAuth2 token from a
// local token endpoint, reuses it, and renews it once when the receiver starts answering 401;
// a pusher presents its client certificate to a local https receiver that requires one, and a
// subscriber without one, delivering to the same origin at the same time, is refused; through
// the egress proxy, the token request and the mTLS handshake both go through tunnels.
// The first attempt of each event must succeed: settled here means delivered, not retried.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();

interface Arrival {
  readonly subscriber: string;
  readonly eventId: string;
  readonly authorization: string | undefined;
  readonly status: number;
}

/** A local endpoint: `answer` decides each status; every request is recorded. */
function recorder(answer: (req: IncomingMessage) => number) {
  const arrivals: Arrival[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, string>;
      const status = answer(req);
      arrivals.push({
        subscriber: body.subscription_id ?? '',
        eventId: body.event_id ?? '',
        authorization: req.headers.authorization,
        status,
      });
      res.writeHead(status).end();
    });
  };
  return { arrivals, handle };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server & { closeAllConnections?: () => void }): Promise<void> {
  server.closeAllConnections?.();
  await new Promise((ok) => server.close(ok));
}

describe('outbound auth', () => {
  openForSuite(fx, factory, receivers);

  it('OAuth2: one token for many deliveries; a 401 renews it once and the delivery succeeds', async () => {
    const tokenRequests: { authorization: string | undefined; form: Record<string, string> }[] = [];
    const tokenServer = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        tokenRequests.push({
          authorization: req.headers.authorization,
          form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            access_token: `token-${tokenRequests.length}`,
            token_type: 'Bearer',
            expires_in: 3600,
          }),
        );
      });
    });
    // The receiver takes the current token only; `valid` moves when the test revokes one.
    let valid = 'token-1';
    const receiver = recorder((req) => (req.headers.authorization === `Bearer ${valid}` ? 204 : 401));
    const receiverServer = createHttpServer(receiver.handle);
    const tokenPort = await listen(tokenServer);
    const receiverPort = await listen(receiverServer);
    const variable = `HOOKSTREAM_OAUTH_${uniqueName('t')
      .replace(/[^A-Za-z0-9]/g, '_')
      .toUpperCase()}`;
    process.env[variable] = 'client-secret';
    try {
      const topic = await fx.topic(2);
      const name = uniqueName('oauth2');
      await fx.startPusher(topic, {
        name,
        url: `http://127.0.0.1:${receiverPort}/hook`,
        oauth2: {
          tokenUrl: `http://127.0.0.1:${tokenPort}/token`,
          clientId: 'hookstream',
          clientSecret: { env: variable },
          scope: 'webhooks',
        },
      });
      const first = Array.from({ length: 10 }, () => factory.event());
      await fx.produce(topic, factory, first);
      await fx.settledEverything(name, topic);
      expect(
        receiver.arrivals
          .filter((a) => a.status === 204)
          .map((a) => a.eventId)
          .sort(),
      ).toEqual(first.map((e) => e.id).sort());
      expect(receiver.arrivals.every((a) => a.authorization === 'Bearer token-1')).toBe(true);
      expect(tokenRequests).toEqual([
        {
          authorization: `Basic ${Buffer.from('hookstream:client-secret').toString('base64')}`,
          form: { grant_type: 'client_credentials', scope: 'webhooks' },
        },
      ]);

      // The destination revokes token-1: the next attempt draws a 401, the pusher fetches
      // token-2 once and sends that attempt again; nothing is retried through a tier.
      valid = 'token-2';
      const before = receiver.arrivals.length;
      const second = Array.from({ length: 5 }, () => factory.event());
      await fx.produce(topic, factory, second);
      await fx.settledEverything(name, topic);
      const later = receiver.arrivals.slice(before);
      expect(
        later
          .filter((a) => a.status === 204)
          .map((a) => a.eventId)
          .sort(),
      ).toEqual(second.map((e) => e.id).sort());
      expect(later.filter((a) => a.status === 204).every((a) => a.authorization === 'Bearer token-2')).toBe(
        true,
      );
      expect(later.some((a) => a.status === 401)).toBe(true);
      // Each 401 went with token-1, and was followed by the same event with token-2.
      for (const refused of later.filter((a) => a.status === 401))
        expect(refused.authorization).toBe('Bearer token-1');
      expect(tokenRequests).toHaveLength(2);
    } finally {
      delete process.env[variable];
      await close(tokenServer);
      await close(receiverServer);
    }
  }, 90_000);

  it('a managed client secret: sealed with `subscribers credential set`, a fleet fetches its token with it', async () => {
    const tokenAuth: (string | undefined)[] = [];
    const tokenServer = createHttpServer((req, res) => {
      tokenAuth.push(req.headers.authorization);
      req.resume();
      req.on('end', () =>
        res.writeHead(200).end(JSON.stringify({ access_token: 'sealed-ok', expires_in: 600 })),
      );
    });
    const receiver = recorder((req) => (req.headers.authorization === 'Bearer sealed-ok' ? 204 : 401));
    const receiverServer = createHttpServer(receiver.handle);
    const tokenPort = await listen(tokenServer);
    const receiverPort = await listen(receiverServer);
    const topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('managed-oauth');
    const name = `${prefix}-a`;
    // Written to the catalog directly: apply would ask every instance of the shared stack to read
    // version 7 (FLEET_TOO_OLD), which is catalog-versions' business, not this test's.
    await produceRegistryRecords(fx.kafka, [
      {
        key: name,
        value: handMadeRecord(
          {
            name,
            url: `http://127.0.0.1:${receiverPort}/hook`,
            start: 'earliest',
            allowPrivateNetwork: true,
            oauth2: {
              tokenUrl: `http://127.0.0.1:${tokenPort}/token`,
              clientId: 'fleet',
              clientSecret: { managed: true },
            },
          },
          { version: 7 },
        ),
      },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'hookstream-cred-'));
    const valueFile = join(dir, 'secret.txt');
    writeFileSync(valueFile, 'sealed-secret\n');
    const fleet = await startCatalogFleet({ topic, prefix, secretsKey });
    try {
      const set = await runCli(
        ['subscribers', 'credential', 'set', name, 'oauth2.clientSecret', '--value-file', valueFile],
        env,
      );
      expect(set.code, set.stderr).toBe(0);
      const event = factory.event();
      await fx.produce(topic, factory, [event]);
      await waitFor('the event delivered with the token', async () =>
        receiver.arrivals.find((a) => a.eventId === event.id && a.status === 204),
      );
      expect(tokenAuth).toEqual([`Basic ${Buffer.from('fleet:sealed-secret').toString('base64')}`]);
      const shown = await runCli(['subscribers', 'show', name, '--json'], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).not.toContain('sealed-secret');
      expect(JSON.parse(shown.stdout).sealedCredentials).toEqual({
        'oauth2.clientSecret': expect.objectContaining({ keyId: expect.any(String) }),
      });
    } finally {
      await fleet.stop();
      rmSync(dir, { recursive: true, force: true });
      await close(tokenServer);
      await close(receiverServer);
    }
  }, 90_000);

  describe('mTLS', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookstream-mtls-'));
    const pem = (path: string) => readFileSync(path, 'utf8');
    const defaults = getCACertificates('default');
    let pki: TestPki;

    beforeAll(async () => {
      pki = await generateTestPki(dir);
      // The pusher runs in this process: it trusts the test CA as it would a public one.
      setDefaultCACertificates([...defaults, pem(pki.caPem)]);
    });
    afterAll(() => {
      setDefaultCACertificates(defaults);
      rmSync(dir, { recursive: true, force: true });
    });

    it('presents the client certificate; a subscriber without one is refused on the same origin', async () => {
      const receiver = recorder(() => 204);
      const handshakes: string[] = [];
      const server = createHttpsServer(
        {
          key: pem(pki.serverKeyPem),
          cert: pem(pki.serverCertPem),
          ca: pem(pki.caPem),
          requestCert: true,
          rejectUnauthorized: true,
        },
        receiver.handle,
      );
      server.on('secureConnection', (socket) =>
        handshakes.push(String(socket.getPeerCertificate().subject?.CN ?? '')),
      );
      const port = await listen(server);
      const variable = `HOOKSTREAM_CLIENT_KEY_${uniqueName('k')
        .replace(/[^A-Za-z0-9]/g, '_')
        .toUpperCase()}`;
      process.env[variable] = pem(pki.clientKeyPem);
      try {
        const topic = await fx.topic(1);
        const url = `https://127.0.0.1:${port}/hook`;
        const withCert = uniqueName('mtls');
        const without = uniqueName('no-cert');
        await fx.startPusher(topic, {
          name: withCert,
          url,
          clientCertificate: { cert: pem(pki.clientCertPem), key: { env: variable } },
        });
        const { logs } = await fx.startPusher(topic, { name: without, url });
        const events = Array.from({ length: 5 }, () => factory.event());
        await fx.produce(topic, factory, events);
        await fx.settledEverything(withCert, topic);
        expect(
          receiver.arrivals
            .filter((a) => a.subscriber === withCert)
            .map((a) => a.eventId)
            .sort(),
        ).toEqual(events.map((e) => e.id).sort());
        // The other subscriber's attempts fail in the handshake and are retried: none arrives.
        await waitFor('the subscriber without a certificate to fail and retry', async () =>
          logs.some((l) => l.message === 'retry scheduled' && l.fields.outcome === 'connection-error')
            ? true
            : undefined,
        );
        expect(receiver.arrivals.filter((a) => a.subscriber === without)).toEqual([]);
        expect(handshakes.length).toBeGreaterThan(0);
        expect(new Set(handshakes)).toEqual(new Set(['hookstream-client']));
      } finally {
        delete process.env[variable];
        await close(server);
      }
    }, 90_000);

    it('through the egress proxy: the token request and the mTLS handshake both go through the tunnel', async () => {
      const proxy = new ConnectProxy();
      const proxyUrl = await proxy.listen();
      const tokenServer = createHttpServer((req, res) => {
        req.resume();
        req.on('end', () =>
          res.writeHead(200).end(JSON.stringify({ access_token: 'proxied', expires_in: 600 })),
        );
      });
      const receiver = recorder((req) => (req.headers.authorization === 'Bearer proxied' ? 204 : 401));
      const server = createHttpsServer(
        {
          key: pem(pki.serverKeyPem),
          cert: pem(pki.serverCertPem),
          ca: pem(pki.caPem),
          requestCert: true,
          rejectUnauthorized: true,
        },
        receiver.handle,
      );
      const tokenPort = await listen(tokenServer);
      const port = await listen(server);
      const suffix = uniqueName('p')
        .replace(/[^A-Za-z0-9]/g, '_')
        .toUpperCase();
      process.env[`HOOKSTREAM_OAUTH_${suffix}`] = 'secret';
      process.env[`HOOKSTREAM_CLIENT_KEY_${suffix}`] = pem(pki.clientKeyPem);
      try {
        const topic = await fx.topic(1);
        const name = uniqueName('proxied-auth');
        await fx.startPusher(
          topic,
          {
            name,
            url: `https://127.0.0.1:${port}/hook`,
            oauth2: {
              tokenUrl: `http://127.0.0.1:${tokenPort}/token`,
              clientId: 'hookstream',
              clientSecret: { env: `HOOKSTREAM_OAUTH_${suffix}` },
            },
            clientCertificate: {
              cert: pem(pki.clientCertPem),
              key: { env: `HOOKSTREAM_CLIENT_KEY_${suffix}` },
            },
          },
          undefined,
          undefined,
          { egressProxy: parseEgressProxy({ HOOKSTREAM_EGRESS_PROXY: proxyUrl }) },
        );
        const events = Array.from({ length: 3 }, () => factory.event());
        await fx.produce(topic, factory, events);
        await fx.settledEverything(name, topic);
        expect(
          receiver.arrivals
            .filter((a) => a.status === 204)
            .map((a) => a.eventId)
            .sort(),
        ).toEqual(events.map((e) => e.id).sort());
        expect(new Set(proxy.targets)).toEqual(new Set([`127.0.0.1:${tokenPort}`, `127.0.0.1:${port}`]));
      } finally {
        delete process.env[`HOOKSTREAM_OAUTH_${suffix}`];
        delete process.env[`HOOKSTREAM_CLIENT_KEY_${suffix}`];
        await proxy.close();
        await close(tokenServer);
        await close(server);
      }
    }, 90_000);
  });
});
