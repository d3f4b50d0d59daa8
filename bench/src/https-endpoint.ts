import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { promisify } from 'node:util';

/** A certificate and its key, PEM. */
export interface SelfSigned {
  readonly cert: string;
  readonly key: string;
}

/**
 * A self-signed certificate for 127.0.0.1, made at run time by openssl (as the tests' PKI is): an
 * EC P-256 key, as it takes milliseconds where RSA takes seconds of a loaded machine's CPU, and
 * the handshake happens once per keep-alive connection, so the key type weighs nothing per POST.
 */
export async function selfSignedCertificate(): Promise<SelfSigned> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-bench-tls-'));
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    const [cert, key] = await Promise.all([
      readFile(join(dir, 'cert.pem'), 'utf8'),
      readFile(join(dir, 'key.pem'), 'utf8'),
    ]);
    return { cert, key };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The https no-op endpoint in its own process, as the http one (push-bench.ts): neither side of
// a comparison shares its event loop. Key and certificate come in the environment, not argv.
const HTTPS_NOOP_ENDPOINT = `
const https = require('node:https');
const server = https.createServer({ key: process.env.BENCH_TLS_KEY, cert: process.env.BENCH_TLS_CERT }, (req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(204); res.end(); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/**
 * Runs `work` with an https no-op endpoint (a self-signed certificate made now) in a process of
 * its own, this process trusting that certificate meanwhile. The pusher has no per-subscriber CA
 * option: it trusts Node's CA store, which an operator extends with NODE_EXTRA_CA_CERTS at start;
 * `tls.setDefaultCACertificates` is the same store extended in a running process. Verification
 * stays on (the name and the chain are checked), and the store is restored afterwards.
 */
export async function withHttpsNoopEndpoint<T>(work: (url: string) => Promise<T>): Promise<T> {
  const { cert, key } = await selfSignedCertificate();
  const endpoint: ChildProcess = spawn(process.execPath, ['-e', HTTPS_NOOP_ENDPOINT], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_TLS_KEY: key, BENCH_TLS_CERT: cert },
  });
  const defaults = getCACertificates('default');
  try {
    if (endpoint.stdout === null) throw new Error('the https endpoint has no stdout');
    const [chunk] = (await once(endpoint.stdout, 'data')) as [Buffer];
    setDefaultCACertificates([...defaults, cert]);
    return await work(`https://127.0.0.1:${Number(chunk.toString().trim())}/hooks`);
  } finally {
    setDefaultCACertificates(defaults);
    if (endpoint.exitCode === null) endpoint.kill('SIGTERM');
  }
}
