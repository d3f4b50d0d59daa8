import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { CredentialName, SubscriberDefinition } from '@hookstream/contracts';
import {
  assertDestinationAllowed,
  type BearerTokens,
  type ClientTlsIdentity,
  fetchClientCredentialsToken,
  type OriginPools,
  TokenCache,
} from '@hookstream/delivery';
import { PusherError } from './errors.ts';

export interface OutboundAuthOptions {
  readonly subscriber: string;
  readonly definition: SubscriberDefinition;
  /** Where the `{ "env": … }` credentials are read, once, when the subscriber starts. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The `{ "managed": true }` credentials, opened from the catalog record's seals. */
  readonly managed?: Readonly<Partial<Record<CredentialName, string>>>;
  /** The process's shared pools: the token URL's connections come from them. */
  readonly pools: OriginPools;
}

/** The longest a token request may take, whatever the definition's timeoutMs. */
const MAX_TOKEN_TIMEOUT_MS = 10_000;

/**
 * A subscriber's outbound credentials, read and checked when it starts: the OAuth2 token source
 * (its token URL held to the rules of `url`) and the mTLS client certificate. A variable that
 * is unset, a key that is no PEM private key or does not match the certificate refuses the
 * start, naming the field and variable, never the value.
 */
export class OutboundAuth {
  readonly bearer: BearerTokens | undefined;
  readonly clientCertificate: ClientTlsIdentity | undefined;
  readonly #release: (() => Promise<void>) | null;

  private constructor(parts: {
    bearer: BearerTokens | undefined;
    clientCertificate: ClientTlsIdentity | undefined;
    release: (() => Promise<void>) | null;
  }) {
    this.bearer = parts.bearer;
    this.clientCertificate = parts.clientCertificate;
    this.#release = parts.release;
  }

  static async open(options: OutboundAuthOptions): Promise<OutboundAuth> {
    const { subscriber, definition } = options;
    const env = options.env ?? process.env;
    const clientCertificate =
      definition.clientCertificate === undefined
        ? undefined
        : clientIdentity(
            subscriber,
            definition.clientCertificate.cert,
            credential(options, env, 'clientCertificate.key', definition.clientCertificate.key),
          );
    const oauth2 = definition.oauth2;
    if (oauth2 === undefined)
      return new OutboundAuth({ bearer: undefined, clientCertificate, release: null });
    const clientSecret = credential(options, env, 'oauth2.clientSecret', oauth2.clientSecret);
    const tokenUrl = new URL(oauth2.tokenUrl);
    // The same address and plain-http rules as the destination: a token URL is a request target too.
    await assertDestinationAllowed(tokenUrl, definition);
    const timeoutMs = Math.min(definition.timeoutMs, MAX_TOKEN_TIMEOUT_MS);
    const lease = options.pools.lease({
      origin: tokenUrl.origin,
      allowPrivateNetwork: definition.allowPrivateNetwork,
      connectTimeoutMs: timeoutMs,
    });
    const bearer = new TokenCache({
      fetch: () =>
        fetchClientCredentialsToken(lease.pool, {
          tokenUrl,
          clientId: oauth2.clientId,
          clientSecret,
          scope: oauth2.scope,
          audience: oauth2.audience,
          timeoutMs,
        }),
    });
    return new OutboundAuth({ bearer, clientCertificate, release: () => lease.release() });
  }

  async close(): Promise<void> {
    await this.#release?.();
  }
}

/** A credential's value: from its variable, or the opened seal of a managed one. */
function credential(
  options: OutboundAuthOptions,
  env: Readonly<Record<string, string | undefined>>,
  field: CredentialName,
  source: { readonly env: string } | { readonly managed: true },
): string {
  const { subscriber } = options;
  if ('managed' in source) {
    const open = options.managed?.[field];
    if (open === undefined || open === '')
      throw new PusherError(
        'NO_SECRET',
        `subscriber "${subscriber}": ${field} is managed, and its sealed value was not given (a managed credential needs the catalog and the secrets key)`,
        false,
      );
    return open;
  }
  const name = source.env;
  const value = env[name];
  if (value === undefined || value === '')
    throw new PusherError(
      'NO_SECRET',
      `subscriber "${subscriber}": ${field} comes from $${name}, which is not set`,
      false,
    );
  return value;
}

function clientIdentity(subscriber: string, cert: string, key: string): ClientTlsIdentity {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new PusherError(
      'BAD_DEFINITION',
      `subscriber "${subscriber}": clientCertificate.cert is not a PEM certificate`,
      false,
    );
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(key));
  } catch {
    throw new PusherError(
      'NO_SECRET',
      `subscriber "${subscriber}": clientCertificate.key is not a PEM private key`,
      false,
    );
  }
  if (!matches)
    throw new PusherError(
      'NO_SECRET',
      `subscriber "${subscriber}": clientCertificate.key is not the private key of clientCertificate.cert`,
      false,
    );
  return { cert, key, id: createHash('sha256').update(cert).update('\0').update(key).digest('hex') };
}
