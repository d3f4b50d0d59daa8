/** A token as the token endpoint gave it. */
export interface BearerGrant {
  readonly accessToken: string;
  /** `expires_in` in seconds; null when the endpoint did not say. */
  readonly expiresInS: number | null;
}

/** Where an HTTP client gets the bearer token it sends, and a new one after a 401. */
export interface BearerTokens {
  token(): Promise<string>;
  /** A fresh token after `rejected` drew a 401: one fetch, however many deliveries saw it. */
  renew(rejected: string): Promise<string>;
}

/** A token without `expires_in` is reused this long (RFC 6749 leaves the lifetime to the server). */
export const DEFAULT_TOKEN_LIFETIME_S = 300;
/** The longest a token is reused, whatever `expires_in` says. */
export const MAX_TOKEN_LIFETIME_S = 86_400;
/** A token is renewed this much before it expires, at most (a tenth of its lifetime for short ones). */
export const MAX_REFRESH_MARGIN_MS = 60_000;

export interface TokenCacheOptions {
  /** Fetches a new token; rejects with a coded error (OAUTH2_TOKEN_…) when it cannot. */
  readonly fetch: () => Promise<BearerGrant>;
  readonly now?: () => number;
}

/**
 * One subscriber's OAuth2 token: fetched when first needed, reused until shortly before it
 * expires, and fetched by one request at a time: deliveries that need it meanwhile wait for
 * that fetch. A failed fetch is not remembered: the next delivery tries again (the retry tiers
 * pace them).
 */
export class TokenCache implements BearerTokens {
  readonly #fetch: () => Promise<BearerGrant>;
  readonly #now: () => number;
  #current: { readonly token: string; readonly renewAtMs: number } | null = null;
  #inFlight: Promise<string> | null = null;

  constructor(options: TokenCacheOptions) {
    this.#fetch = options.fetch;
    this.#now = options.now ?? Date.now;
  }

  token(): Promise<string> {
    const current = this.#current;
    if (current !== null && this.#now() < current.renewAtMs) return Promise.resolve(current.token);
    return this.#refresh();
  }

  renew(rejected: string): Promise<string> {
    if (this.#current?.token === rejected) this.#current = null;
    // Another delivery's 401 already brought a new one.
    if (this.#current !== null) return Promise.resolve(this.#current.token);
    return this.#refresh();
  }

  #refresh(): Promise<string> {
    if (this.#inFlight !== null) return this.#inFlight;
    const fetching = this.#fetch().then(
      (grant) => {
        this.#inFlight = null;
        this.#current = { token: grant.accessToken, renewAtMs: this.#renewAt(grant.expiresInS) };
        return grant.accessToken;
      },
      (err: unknown) => {
        this.#inFlight = null;
        throw err;
      },
    );
    this.#inFlight = fetching;
    return fetching;
  }

  #renewAt(expiresInS: number | null): number {
    const lifetimeMs =
      Math.min(Math.max(expiresInS ?? DEFAULT_TOKEN_LIFETIME_S, 0), MAX_TOKEN_LIFETIME_S) * 1000;
    return this.#now() + lifetimeMs - Math.min(MAX_REFRESH_MARGIN_MS, lifetimeMs / 10);
  }
}
