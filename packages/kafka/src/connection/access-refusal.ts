import type { KafkaSasl, KafkaTls } from '@hookstream/contracts';
import { KafkaAccessError } from '../errors.ts';

/** What the client was configured with, and what it was doing when refused. */
export interface AccessContext {
  readonly tls?: KafkaTls | null | undefined;
  readonly sasl?: KafkaSasl | null | undefined;
  /** e.g. "write to topic hookstream.events"; named in an authorization message. */
  readonly action?: string;
}

const UNTRUSTED_SERVER = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_SIGNATURE_FAILURE',
]);
/** Alerts a broker sends when it does not accept the client's certificate (or its absence). */
const CLIENT_CERT_REFUSED =
  /ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_EXPIRED|CERTIFICATE_UNKNOWN|HANDSHAKE_FAILURE)$/;
const AUTHORIZATION = new Set([
  'TOPIC_AUTHORIZATION_FAILED',
  'GROUP_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
]);

interface ErrorLike {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly originalError?: unknown;
  /** KafkaJSAggregateError (e.g. createTopics): one error per topic. */
  readonly errors?: unknown;
}

/**
 * The error and what it wraps: kafkajs nests the socket's error in retries and connection
 * errors, and a per-topic failure in an aggregate.
 */
function* chain(err: unknown, seen = new Set<unknown>()): Generator<ErrorLike> {
  let current: unknown = err;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const e = current as ErrorLike;
    yield e;
    if (Array.isArray(e.errors)) for (const inner of e.errors) yield* chain(inner, seen);
    current = e.originalError ?? e.cause;
  }
}

/** Who the client is, as refusal messages name it. */
export function principal(ctx: AccessContext): string {
  return ctx.sasl
    ? `user "${ctx.sasl.username}" (KAFKA_SASL_USERNAME)`
    : 'this client (no KAFKA_SASL_USERNAME set)';
}

/**
 * Recognises an authentication, TLS or authorization refusal anywhere in a kafkajs error and
 * says which setting to look at; null for anything else (an outage stays an outage).
 */
export function explainKafkaError(err: unknown, ctx: AccessContext = {}): KafkaAccessError | null {
  if (err instanceof KafkaAccessError) return err;
  for (const e of chain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (e.name === 'KafkaJSSASLAuthenticationError' || e.type === 'SASL_AUTHENTICATION_FAILED') {
      const who = ctx.sasl ? `user "${ctx.sasl.username}" with ${ctx.sasl.mechanism}` : 'the client';
      return new KafkaAccessError(
        'KAFKA_AUTH_FAILED',
        `KAFKA_SASL_PASSWORD: Kafka refused ${who}: wrong password or unknown user (check KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE, KAFKA_SASL_MECHANISM): ${message}`,
        { cause: err },
      );
    }
    if (typeof e.type === 'string' && AUTHORIZATION.has(e.type)) {
      return new KafkaAccessError(
        'KAFKA_NOT_AUTHORIZED',
        `${principal(ctx)} is not authorized to ${ctx.action ?? 'do this'} (${e.type}): grant the ACLs the component needs (docs/security.md, "ACLs")`,
        { cause: err },
      );
    }
    if (UNTRUSTED_SERVER.has(code)) {
      return new KafkaAccessError(
        'KAFKA_TLS_FAILED',
        `KAFKA_TLS_CA_FILE: the broker's certificate is not signed by ${ctx.tls?.ca ? 'the CA in KAFKA_TLS_CA_FILE' : 'a CA Node trusts; set KAFKA_TLS_CA_FILE to the CA that signed it'} (${code})`,
        { cause: err },
      );
    }
    if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
      return new KafkaAccessError(
        'KAFKA_TLS_FAILED',
        `KAFKA_BROKERS: the broker's certificate is not issued for the host name used to reach it (${message}); use the name in the certificate, or KAFKA_TLS_CHECK_SERVER_NAME=false`,
        { cause: err },
      );
    }
    if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
      return new KafkaAccessError(
        'KAFKA_TLS_FAILED',
        `KAFKA_BROKERS: the broker's certificate is not valid now (${code})`,
        {
          cause: err,
        },
      );
    }
    if (CLIENT_CERT_REFUSED.test(code)) {
      return new KafkaAccessError(
        'KAFKA_TLS_FAILED',
        ctx.tls?.cert
          ? `KAFKA_TLS_CERT_FILE: the broker refused the client certificate (${code})`
          : `KAFKA_TLS_CERT_FILE: the broker requires a client certificate (mTLS); set KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE (${code})`,
        { cause: err },
      );
    }
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') {
      return new KafkaAccessError(
        'KAFKA_TLS_FAILED',
        `KAFKA_TLS: the broker's listener does not speak TLS (${code}); unset KAFKA_TLS and the KAFKA_TLS_* files, or use its TLS port`,
        { cause: err },
      );
    }
  }
  return null;
}

/** Runs a call and turns an access refusal into a KafkaAccessError; other errors pass unchanged. */
export async function explained<T>(call: () => Promise<T>, ctx: AccessContext): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw explainKafkaError(err, ctx) ?? err;
  }
}
