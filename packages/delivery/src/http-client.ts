import type { KeyObject } from 'node:crypto';
import { TRACEPARENT_HEADER, WEBHOOK_HEADER } from '@hookstream/contracts';
import { dispatchAttempt } from './attempt-dispatch.ts';
import { credentialForms, redactCredentials, signingSecretForms } from './excerpt-redaction.ts';
import { OAUTH2_TOKEN_CODE_PREFIX } from './oauth2-token.ts';
import { type ClientTlsIdentity, newPool, type OriginPools, type PoolLease } from './origin-pools.ts';
import type { AttemptResult } from './policy.ts';
import { hmacKey, signPayloadWithKeys } from './signing.ts';
import type { BearerTokens } from './token-cache.ts';

export interface HttpClientOptions {
  readonly url: string;
  readonly timeoutMs: number;
  /** Keep-alive connections to the origin; the limiter's concurrency is the natural value. */
  readonly connections: number;
  readonly allowPrivateNetwork: boolean;
  /** HMAC key from parseSigningSecret; no signature header without one (nor signingKeys). */
  readonly signingKey?: Buffer | undefined;
  /**
   * Several keys, the current one first: each request carries one signature per key (a secret
   * rotation's grace period). Takes the place of signingKey when given and not empty.
   */
  readonly signingKeys?: readonly Buffer[] | undefined;
  readonly extraHeaders?: Readonly<Record<string, string>>;
  /** Bytes of a response body kept as evidence; the rest is read and discarded. */
  readonly excerptBytes?: number;
  /** Bytes read from a response body at most; past it the connection is dropped. */
  readonly maxBodyBytes?: number;
  /**
   * The process's shared pools (a fleet): the client leases its origin's pool instead of opening
   * its own; `connections` then only bounds a pool of its own.
   */
  readonly pools?: OriginPools;
  /**
   * OAuth2: every request carries `Authorization: Bearer <token>`; a 401 renews the token once
   * and sends the attempt once more (its answer is the attempt's, a second 401 included).
   */
  readonly bearer?: BearerTokens | undefined;
  /** Presented in the TLS handshake with the destination (mTLS). */
  readonly clientCertificate?: ClientTlsIdentity | undefined;
}

export interface OutgoingDelivery {
  /**
   * The request's `webhook-id` and `idempotency-key`, and what its signature binds: the event's
   * id, or a batch's own id for a batch request.
   */
  readonly eventId: string;
  readonly body: string;
  readonly traceparent?: string | undefined;
}

export type AttemptReport = AttemptResult & {
  readonly durationMs: number;
  /**
   * The start of the response body, for evidence (DLQ headers, logs, the attempt log), with the
   * request's credentials redacted. Empty when none.
   */
  readonly excerpt: string;
};

/**
 * One subscriber endpoint over a keep-alive undici pool. Redirects are never followed (undici
 * only follows them with a redirect interceptor, which this pool does not have).
 */
export class HttpClient {
  readonly #lease: PoolLease;
  readonly #path: string;
  readonly #options: HttpClientOptions;
  readonly #baseHeaders: Record<string, string>;
  readonly #signingKeys: readonly KeyObject[];
  /** What every request carries that an excerpt must not show: its headers' values, the secrets. */
  readonly #credentials: readonly string[];

  constructor(options: HttpClientOptions) {
    const url = new URL(options.url);
    this.#options = options;
    const keys =
      options.signingKeys !== undefined && options.signingKeys.length > 0
        ? options.signingKeys
        : options.signingKey
          ? [options.signingKey]
          : [];
    this.#signingKeys = keys.map(hmacKey);
    // Every configured header value counts: which of them is a credential cannot be told.
    this.#credentials = [
      ...Object.values(options.extraHeaders ?? {}).flatMap(credentialForms),
      ...keys.flatMap(signingSecretForms),
    ];
    this.#path = `${url.pathname}${url.search}`;
    const key = {
      origin: url.origin,
      allowPrivateNetwork: options.allowPrivateNetwork,
      connectTimeoutMs: Math.min(options.timeoutMs, 10_000),
      clientCertificate: options.clientCertificate,
    };
    if (options.pools) this.#lease = options.pools.lease(key);
    else {
      const pool = newPool(key, options.connections);
      this.#lease = { pool, release: () => pool.close() };
    }
    this.#baseHeaders = {
      'user-agent': 'hookstream-pusher/0.1',
      ...options.extraHeaders,
      'content-type': 'application/json',
    };
  }

  /** Sends one attempt; never throws, every failure is an AttemptResult. */
  send(delivery: OutgoingDelivery): Promise<AttemptReport> {
    const bearer = this.#options.bearer;
    // Without OAuth2 the attempt is the dispatch itself: no extra promise per delivery.
    return bearer === undefined ? this.#dispatch(delivery, null) : this.#sendWithToken(delivery, bearer);
  }

  /** With a bearer token; a 401 renews it once and sends the attempt once more. */
  async #sendWithToken(delivery: OutgoingDelivery, bearer: BearerTokens): Promise<AttemptReport> {
    const started = performance.now();
    let token: string;
    try {
      token = await bearer.token();
    } catch (err) {
      return tokenFailure(err, started);
    }
    const first = await this.#dispatch(delivery, token);
    if (first.kind !== 'response' || first.status !== 401) return first;
    try {
      token = await bearer.renew(token);
    } catch (err) {
      return tokenFailure(err, started);
    }
    const second = await this.#dispatch(delivery, token);
    return { ...second, durationMs: performance.now() - started };
  }

  #dispatch(delivery: OutgoingDelivery, token: string | null): Promise<AttemptReport> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      ...this.#baseHeaders,
      [WEBHOOK_HEADER.id]: delivery.eventId,
      [WEBHOOK_HEADER.timestamp]: String(timestamp),
      [WEBHOOK_HEADER.idempotencyKey]: delivery.eventId,
    };
    if (this.#signingKeys.length > 0)
      headers[WEBHOOK_HEADER.signature] = signPayloadWithKeys(
        this.#signingKeys,
        delivery.eventId,
        timestamp,
        delivery.body,
      );
    if (delivery.traceparent) headers[TRACEPARENT_HEADER] = delivery.traceparent;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const signature = headers[WEBHOOK_HEADER.signature];
    const redact = (excerpt: string) =>
      redactCredentials(excerpt, [
        ...this.#credentials,
        ...(signature === undefined ? [] : credentialForms(signature)),
        ...(token === null ? [] : credentialForms(`Bearer ${token}`)),
      ]);
    const { timeoutMs } = this.#options;
    return dispatchAttempt(
      this.#lease.pool,
      {
        method: 'POST',
        path: this.#path,
        headers,
        body: delivery.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      {
        timeoutMs,
        excerptBytes: this.#options.excerptBytes ?? 256,
        maxBodyBytes: this.#options.maxBodyBytes ?? 64 * 1024,
      },
      redact,
    );
  }

  async close(): Promise<void> {
    await this.#lease.release();
  }
}

/** No token could be had: the attempt fails without reaching the destination (a token-error). */
function tokenFailure(err: unknown, started: number): AttemptReport {
  const code = (err as { code?: unknown }).code;
  return {
    kind: 'connection-error',
    code:
      typeof code === 'string' && code.startsWith(OAUTH2_TOKEN_CODE_PREFIX)
        ? code
        : `${OAUTH2_TOKEN_CODE_PREFIX}UNREACHABLE`,
    durationMs: performance.now() - started,
    excerpt: err instanceof Error ? err.message.slice(0, 256) : '',
  };
}
