import { lookup } from 'node:dns/promises';
import { isIP, type Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { redactUrlText } from '@hookstream/contracts';
import type { buildConnector } from 'undici';
import { isPrivateAddress } from './address-guard.ts';
import { DeliveryError } from './errors.ts';

/**
 * An HTTP proxy every delivery goes through (`HOOKSTREAM_EGRESS_PROXY`): how a customer
 * allow-lists one sender. Hosts matching `NO_PROXY` are reached directly.
 */
export interface EgressProxy {
  /** `http://[user:password@]host:port`. */
  readonly url: URL;
  /** NO_PROXY entries, lower-case: `*`, a host, or a domain suffix (`.example.com` or `example.com`). */
  readonly noProxy: readonly string[];
}

/** Error codes of a failure of the proxy itself: not the destination's (policy.ts). */
export const EGRESS_PROXY_CODE_PREFIX = 'EGRESS_PROXY_';

/** The proxy from the environment; null without one. Throws naming the variable when it is unusable. */
export function parseEgressProxy(env: {
  readonly HOOKSTREAM_EGRESS_PROXY?: string | undefined;
  readonly NO_PROXY?: string | undefined;
}): EgressProxy | null {
  const raw = env.HOOKSTREAM_EGRESS_PROXY?.trim();
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Shown without its user info: a proxy's password is the usual thing that breaks the URL.
    throw new DeliveryError(
      'BAD_EGRESS_PROXY',
      `HOOKSTREAM_EGRESS_PROXY: not a URL: '${redactUrlText(raw)}'`,
      false,
    );
  }
  if (url.protocol !== 'http:' || url.port === '' || url.pathname !== '/' || url.search !== '')
    throw new DeliveryError(
      'BAD_EGRESS_PROXY',
      'HOOKSTREAM_EGRESS_PROXY: expected http://[user:password@]host:port (an HTTP proxy that takes CONNECT)',
      false,
    );
  const noProxy = (env.NO_PROXY ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  return { url, noProxy };
}

/** Whether a destination host is reached without the proxy (NO_PROXY). */
export function bypassesProxy(proxy: EgressProxy, hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return proxy.noProxy.some((entry) => {
    if (entry === '*') return true;
    const domain = entry.startsWith('.') ? entry.slice(1) : entry;
    return host === domain || host.endsWith(`.${domain}`);
  });
}

type Connector = buildConnector.connector;

/**
 * undici's `connect` for a pool whose destination goes through the proxy. The destination is
 * resolved and checked here first (a private address is refused unless allowed), and the proxy
 * is asked to CONNECT to the checked address, so neither the proxy's DNS nor a second lookup
 * can aim the delivery elsewhere. TLS runs inside the tunnel, with the destination's name.
 * A failure of the proxy (unreachable, refused, no answer) carries an EGRESS_PROXY_ code.
 */
export interface ProxyConnectOptions {
  readonly allowPrivateNetwork: boolean;
  readonly timeoutMs: number;
  /** A client certificate for the TLS handshake inside the tunnel (mTLS). */
  readonly tls?: { readonly cert?: string; readonly key?: string };
}

export function proxyConnector(proxy: EgressProxy, options: ProxyConnectOptions): Connector {
  return (opts, callback) => {
    tunnel(proxy, options, opts).then(
      (socket) => callback(null, socket),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };
}

async function tunnel(
  proxy: EgressProxy,
  options: ProxyConnectOptions,
  opts: buildConnector.Options,
): Promise<Socket> {
  const host = opts.hostname.replace(/^\[(.*)\]$/, '$1');
  const https = opts.protocol === 'https:';
  const port = Number(opts.port) || (https ? 443 : 80);
  const address = isIP(host) !== 0 ? host : (await lookup(host)).address;
  if (!options.allowPrivateNetwork && isPrivateAddress(address))
    throw Object.assign(new Error(`${host} resolves to ${address}, a private address`), {
      code: 'EPRIVATEADDR',
    });
  const target = isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
  const socket = await connectToProxy(proxy, options.timeoutMs);
  try {
    await askForTunnel(socket, proxy, target, options.timeoutMs);
  } catch (err) {
    socket.destroy();
    throw err;
  }
  if (!https) return socket;
  return new Promise<Socket>((resolve, reject) => {
    const secure = tlsConnect({
      ...options.tls,
      socket,
      // The name the certificate is checked against: without `host`, an IP destination (no SNI)
      // would be checked as 'localhost'.
      host,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ALPNProtocols: ['http/1.1'],
    });
    secure.once('secureConnect', () => resolve(secure));
    secure.once('error', reject);
  });
}

function proxyFailure(code: string, message: string): Error {
  return Object.assign(new Error(`egress proxy: ${message}`), { code: `${EGRESS_PROXY_CODE_PREFIX}${code}` });
}

function connectToProxy(proxy: EgressProxy, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({
      host: proxy.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(proxy.url.port),
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(proxyFailure('TIMEOUT', `no connection to ${proxy.url.host} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(proxyFailure('UNREACHABLE', `${proxy.url.host}: ${err.code ?? err.message}`));
    });
  });
}

/** The longest CONNECT answer head read; a proxy that sends more is broken. */
const MAX_ANSWER_BYTES = 16 * 1024;

function askForTunnel(socket: Socket, proxy: EgressProxy, target: string, timeoutMs: number): Promise<void> {
  const auth =
    proxy.url.username === ''
      ? ''
      : `Proxy-Authorization: Basic ${Buffer.from(
          `${decodeURIComponent(proxy.url.username)}:${decodeURIComponent(proxy.url.password)}`,
        ).toString('base64')}\r\n`;
  socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const done = (err: Error | null) => {
      clearTimeout(timer);
      socket.off('readable', onReadable);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (err === null) resolve();
      else reject(err);
    };
    const timer = setTimeout(
      () => done(proxyFailure('TIMEOUT', `no answer to CONNECT within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onError = (err: Error) => done(proxyFailure('UNREACHABLE', err.message));
    const onClose = () => done(proxyFailure('REFUSED', 'closed the connection before answering CONNECT'));
    // Read in paused mode ('readable'), as undici does after: nothing of the tunnel is lost between.
    const onReadable = () => {
      for (
        let chunk = socket.read() as Buffer | null;
        chunk !== null;
        chunk = socket.read() as Buffer | null
      ) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) {
          if (head.length > MAX_ANSWER_BYTES) done(proxyFailure('REFUSED', 'an answer head without end'));
          continue;
        }
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1]);
        if (status !== 200) {
          done(
            proxyFailure(
              'REFUSED',
              `CONNECT ${target} answered ${Number.isNaN(status) ? 'garbage' : status}`,
            ),
          );
          return;
        }
        // Bytes after the head belong to the tunnel: give them back for undici (or TLS) to read.
        const rest = head.subarray(end + 4);
        done(null);
        if (rest.length > 0) socket.unshift(rest);
        return;
      }
    };
    socket.on('readable', onReadable);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
}
