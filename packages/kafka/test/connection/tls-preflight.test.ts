import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TlsOptions } from 'node:tls';
import { promisify } from 'node:util';
import type { KafkaTls } from '@hookstream/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka } from '../../src/connection/kafka-connection.ts';
import { checkTlsAccess } from '../../src/connection/tls-preflight.ts';
import { KafkaAccessError } from '../../src/errors.ts';

const run = promisify(execFile);

interface Pem {
  readonly cert: string;
  readonly key: string;
}

/** A self-signed certificate (its own CA) for `subject`, with `extra` openssl -addext values. */
async function selfSigned(dir: string, name: string, subject: string, extra: string[] = []): Promise<Pem> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  const ext = extra.flatMap((e) => ['-addext', e]);
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', subject, ...ext];
  await run('openssl', [...args, '-keyout', key, '-out', cert]);
  return { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
}

/** A TLS listener on 127.0.0.1 that answers any request with a few bytes, counting connections. */
async function tlsBroker(
  options: TlsOptions,
): Promise<{ address: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createServer(options, (socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.write(Buffer.from([0, 0, 0, 6, 0, 0, 0, 1, 0, 0])));
  });
  server.on('connection', () => connections++);
  server.on('tlsClientError', () => undefined);
  return listening(server, () => connections);
}

async function listening(server: Server, connections: () => number) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createNetServer();
  const { address, close } = await listening(server, () => 0);
  await close();
  return address;
}

let dir: string;
let server: Pem;
let other: Pem;
let client: Pem;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookstream-tls-'));
  server = await selfSigned(dir, 'server', '/CN=127.0.0.1', [
    'subjectAltName=IP:127.0.0.1',
    'basicConstraints=critical,CA:TRUE',
  ]);
  other = await selfSigned(dir, 'other', '/CN=other-ca', ['basicConstraints=critical,CA:TRUE']);
  client = await selfSigned(dir, 'client', '/CN=hookstream-client', ['basicConstraints=critical,CA:TRUE']);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const trusting = (ca: string, own?: Pem): KafkaTls => ({
  ca,
  cert: own?.cert,
  key: own?.key,
  checkServerName: true,
});

describe('checkTlsAccess: TLS settings a broker refuses fail before kafkajs retries them', () => {
  it('passes a broker whose certificate the client trusts, once it answered', async () => {
    const broker = await tlsBroker({ cert: server.cert, key: server.key });
    try {
      await expect(
        checkTlsAccess([broker.address], trusting(server.cert), {}, 3000),
      ).resolves.toBeUndefined();
    } finally {
      await broker.close();
    }
  });

  it('refuses a broker certificate no trusted CA signed, naming KAFKA_TLS_CA_FILE', async () => {
    const broker = await tlsBroker({ cert: server.cert, key: server.key });
    try {
      const tls = trusting(other.cert);
      const refusal = await checkTlsAccess([broker.address], tls, { tls }, 3000).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(KafkaAccessError);
      expect(refusal).toMatchObject({ code: 'KAFKA_TLS_FAILED', canRetry: false });
      expect((refusal as Error).message).toMatch(
        /^KAFKA_TLS_CA_FILE: the broker's certificate is not signed by the CA in KAFKA_TLS_CA_FILE/,
      );
    } finally {
      await broker.close();
    }
  });

  it('refuses when the broker requires a client certificate and none is set, naming KAFKA_TLS_CERT_FILE; passes with one', async () => {
    const broker = await tlsBroker({
      cert: server.cert,
      key: server.key,
      requestCert: true,
      rejectUnauthorized: true,
      ca: client.cert,
    });
    try {
      const without = trusting(server.cert);
      await expect(checkTlsAccess([broker.address], without, { tls: without }, 3000)).rejects.toThrow(
        /^KAFKA_TLS_CERT_FILE: the broker requires a client certificate/,
      );
      const withCert = trusting(server.cert, client);
      await expect(
        checkTlsAccess([broker.address], withCert, { tls: withCert }, 3000),
      ).resolves.toBeUndefined();
    } finally {
      await broker.close();
    }
  });

  it('leaves an unreachable broker to kafkajs, and asks the next one', async () => {
    const nobody = await closedPort();
    await expect(checkTlsAccess([nobody], trusting(server.cert), {}, 3000)).resolves.toBeUndefined();
    const broker = await tlsBroker({ cert: server.cert, key: server.key });
    try {
      const tls = trusting(other.cert);
      await expect(checkTlsAccess([nobody, broker.address], tls, { tls }, 3000)).rejects.toThrow(
        /KAFKA_TLS_CA_FILE/,
      );
    } finally {
      await broker.close();
    }
  });
});

describe('checkTlsAccess across brokers', () => {
  it('asks every broker at once: one that accepts and never answers holds up no other', async () => {
    const sockets: Socket[] = [];
    const silent = await listening(
      createNetServer((socket) => void sockets.push(socket)),
      () => sockets.length,
    );
    const broker = await tlsBroker({ cert: server.cert, key: server.key });
    try {
      // Asked one after the other, the silent one would hold the check for its whole minute.
      await checkTlsAccess([silent.address, broker.address], trusting(server.cert), {}, 60_000);
      expect(silent.connections()).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await Promise.all([silent.close(), broker.close()]);
    }
  });
});

describe('KafkaAdmin.connect with TLS', () => {
  it('refuses an untrusted broker before kafkajs connects, and checks once per connection', async () => {
    const broker = await tlsBroker({ cert: server.cert, key: server.key });
    try {
      const kafka = createKafka({
        brokers: [broker.address],
        clientId: 'unit',
        tls: trusting(other.cert),
        quiet: true,
      });
      for (const admin of [kafka.admin(), kafka.admin()]) {
        await expect(admin.connect()).rejects.toThrow(/KAFKA_TLS_CA_FILE/);
      }
      // kafkajs, asked, would have connected once and retried five times.
      expect(broker.connections()).toBe(1);
    } finally {
      await broker.close();
    }
  });
});
