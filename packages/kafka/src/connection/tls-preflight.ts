import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { KafkaTls } from '@hookstream/contracts';
import { type AccessContext, explainKafkaError } from './access-refusal.ts';
import { tlsOptions } from './client.ts';

/**
 * An ApiVersions v0 request (correlation id 1, no client id): the one request a broker answers
 * before SASL authentication, so any TLS listener of any security setting answers it.
 */
const API_VERSIONS_V0 = Buffer.from([0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 0xff, 0xff]);

/** What one broker said: it answered over TLS, it refused (the error), or it was not there. */
type Verdict = 'answered' | 'unreachable' | Error;

/**
 * One TLS handshake and ApiVersions request to each broker at once, before kafkajs connects: a
 * certificate the client cannot trust, or a client certificate the broker refuses, stays wrong
 * however often it is tried, yet kafkajs retries it as it would an outage (five times with
 * backoff, about 10 s) before the refusal comes out. Resolves at the first broker that answered,
 * or once none could be reached (an outage is kafkajs's to retry, and a broker that does not
 * answer holds nothing up beyond `timeoutMs`); rejects at the first TLS refusal with the
 * KafkaAccessError naming the setting.
 */
export function checkTlsAccess(
  brokers: readonly string[],
  tls: KafkaTls,
  ctx: AccessContext,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let unheard = brokers.length;
    if (unheard === 0) resolve();
    for (const broker of brokers) {
      void askOverTls(broker, tls, timeoutMs).then((verdict) => {
        if (verdict === 'answered') return resolve();
        const refusal = verdict instanceof Error ? explainKafkaError(verdict, ctx) : null;
        if (refusal !== null) return reject(refusal);
        if (--unheard === 0) resolve();
      });
    }
  });
}

function askOverTls(broker: string, tls: KafkaTls, timeoutMs: number): Promise<Verdict> {
  const colon = broker.lastIndexOf(':');
  const host = broker.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(broker.slice(colon + 1));
  if (colon < 1 || !Number.isInteger(port)) return Promise.resolve('unreachable');
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port,
      // As kafkajs sends it, except that an IP address is no server name (RFC 6066).
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...tlsOptions(tls),
    });
    const done = (verdict: Verdict) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(verdict);
    };
    const timer = setTimeout(() => done('unreachable'), timeoutMs);
    // With TLS 1.3 the broker checks the client's certificate after the client's handshake ended:
    // a refusal arrives as an alert on the first read, hence the request.
    socket.once('secureConnect', () => socket.write(API_VERSIONS_V0));
    socket.once('data', () => done('answered'));
    socket.once('error', (err) => done(err));
    socket.once('close', () => done('unreachable'));
  });
}
