import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StackError } from './errors.ts';
import { requireCommand } from './tools.ts';

const run = promisify(execFile);

/** Paths of PEM files for a TLS test setup, all under one folder. */
export interface TestPki {
  /** The CA that signed the broker's and the client's certificates. */
  readonly caPem: string;
  /** The broker's key followed by its certificate (Kafka's PEM keystore file). */
  readonly brokerKeystorePem: string;
  /** The broker's certificate (127.0.0.1 and localhost, serverAuth) and key: any local TLS server's. */
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  /** The client's certificate (CN `hookstream-client`, clientAuth) and key. */
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  /** A CA that signed nothing here: trusting only it must fail the broker's certificate. */
  readonly otherCaPem: string;
}

/**
 * Makes a CA, a broker certificate for 127.0.0.1 and localhost, and a client certificate, with
 * openssl; valid for 30 days (a test's run is far shorter). Keys are unencrypted PKCS#8, which
 * Kafka's PEM keystore reads without a password.
 */
export async function generateTestPki(dir: string): Promise<TestPki> {
  const openssl = await requireCommand('openssl', 'Generating test certificates');
  await mkdir(dir, { recursive: true });
  const f = (name: string) => join(dir, name);
  const ssl = async (...args: string[]) => {
    try {
      await run(openssl, args);
    } catch (err) {
      throw new StackError('START_FAILED', `openssl ${args[0]} failed: ${(err as Error).message}`);
    }
  };
  const ca = async (name: string, cn: string) =>
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '30',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      f(`${name}.key`),
      '-out',
      f(`${name}.pem`),
    );
  const leaf = async (name: string, cn: string, extensions: string) => {
    await writeFile(f(`${name}.ext`), `${extensions}\n`);
    await ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      f(`${name}.key`),
      '-out',
      f(`${name}.csr`),
    );
    await ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '30',
      '-extfile',
      f(`${name}.ext`),
      '-out',
      f(`${name}.pem`),
    );
  };
  await ca('ca', 'hookstream-test-ca');
  await ca('other-ca', 'hookstream-other-ca');
  await leaf('broker', 'localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth');
  await leaf('client', 'hookstream-client', 'extendedKeyUsage=clientAuth');
  const keystore = f('broker-keystore.pem');
  await writeFile(
    keystore,
    `${await readFile(f('broker.key'), 'utf8')}${await readFile(f('broker.pem'), 'utf8')}`,
  );
  return {
    caPem: f('ca.pem'),
    brokerKeystorePem: keystore,
    serverCertPem: f('broker.pem'),
    serverKeyPem: f('broker.key'),
    clientCertPem: f('client.pem'),
    clientKeyPem: f('client.key'),
    otherCaPem: f('other-ca.pem'),
  };
}
