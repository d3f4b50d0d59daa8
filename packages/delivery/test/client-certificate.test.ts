import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { generateTestPki, type TestPki } from '@hookstream/stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../src/http-client.ts';
import { type ClientTlsIdentity, OriginPools } from '../src/origin-pools.ts';

// mTLS against a real local https server that requires a client certificate, with a throwaway
// CA made by openssl. Two clients of one process share its pools: the one without a
// certificate must never ride a connection that presented the other's.
describe('client certificates (mTLS)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookstream-mtls-unit-'));
  const pem = (path: string) => readFileSync(path, 'utf8');
  let pki: TestPki;
  const defaults = getCACertificates('default');
  let server: Server | undefined;
  let url: string;
  const seen: string[] = [];

  // openssl makes four RSA keys: seconds of CPU, far more on a machine busy with other work, so
  // the hook is not held to vitest's default 10 s.
  beforeAll(async () => {
    pki = await generateTestPki(dir);
    setDefaultCACertificates([...defaults, pem(pki.caPem)]);
    const https = createServer(
      {
        key: pem(pki.serverKeyPem),
        cert: pem(pki.serverCertPem),
        ca: pem(pki.caPem),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        seen.push(String((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN));
        req.resume();
        req.on('end', () => res.writeHead(204).end());
      },
    );
    server = https;
    await new Promise<void>((ok) => https.listen(0, '127.0.0.1', ok));
    url = `https://127.0.0.1:${(https.address() as AddressInfo).port}/hook`;
  }, 120_000);
  afterAll(() => {
    setDefaultCACertificates(defaults);
    server?.closeAllConnections();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('presents the certificate; a client without one, on the same shared pools, is refused', async () => {
    const pools = new OriginPools();
    const alice: ClientTlsIdentity = {
      cert: pem(pki.clientCertPem),
      key: pem(pki.clientKeyPem),
      id: createHash('sha256').update(pem(pki.clientCertPem)).digest('hex'),
    };
    // The deadline is not what is tested: TLS handshakes on a loaded machine are not raced.
    const options = { url, timeoutMs: 30_000, connections: 2, allowPrivateNetwork: true, pools };
    const withCert = new HttpClient({ ...options, clientCertificate: alice });
    const without = new HttpClient(options);
    try {
      const accepted = await withCert.send({ eventId: 'a1', body: '{}' });
      expect(accepted).toMatchObject({ kind: 'response', status: 204 });
      // Alice's connection is open and idle in her pool; the other client has a pool of its own.
      expect(pools.size).toBe(2);
      const refused = await without.send({ eventId: 'b1', body: '{}' });
      expect(refused.kind).toBe('connection-error');
      expect(seen).toEqual(['hookstream-client']);
    } finally {
      await withCert.close();
      await without.close();
    }
  }, 60_000);
});
