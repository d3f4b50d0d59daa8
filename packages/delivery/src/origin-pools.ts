import { Pool } from 'undici';
import { publicOnlyLookup } from './address-guard.ts';
import { bypassesProxy, type EgressProxy, proxyConnector } from './egress-proxy.ts';

/** What a pool is shared by: the origin and the rules its connections are made under. */
export interface PoolKey {
  readonly origin: string;
  readonly allowPrivateNetwork: boolean;
  readonly connectTimeoutMs: number;
  /** Every connection goes through this proxy (unless NO_PROXY names the host); null: direct. */
  readonly proxy?: EgressProxy | null;
  /** Presented in every TLS handshake of the pool (mTLS); its connections are then its own. */
  readonly clientCertificate?: ClientTlsIdentity | undefined;
}

/** A client certificate and its private key (PEM), and a digest of both that names the pair. */
export interface ClientTlsIdentity {
  readonly cert: string;
  readonly key: string;
  /** sha256 of cert and key: pools are shared by the holders of the same pair only. */
  readonly id: string;
}

/** A client's use of a shared pool; release it once, when the client closes. */
export interface PoolLease {
  readonly pool: Pool;
  release(): Promise<void>;
}

/** An idle keep-alive connection is closed after this long. */
const KEEP_ALIVE_MS = 30_000;

/**
 * Keep-alive pools shared by all the HTTP clients of one process: one per origin (and address
 * rule and connect timeout), however many subscribers deliver there, so a fleet holds one set
 * of connections per destination instead of one per subscriber. Each subscriber's limiter still
 * bounds its own requests in flight; a pool closes when its last client does.
 */
export class OriginPools {
  readonly #pools = new Map<string, { pool: Pool; users: number }>();
  readonly #proxy: EgressProxy | null;

  /** `proxy`: the process's egress proxy (HOOKSTREAM_EGRESS_PROXY), for every pool it opens. */
  constructor(proxy: EgressProxy | null = null) {
    this.#proxy = proxy;
  }

  lease(key: PoolKey): PoolLease {
    // A client certificate is part of the key: another subscriber's connections to the same
    // origin must not present it (nor be authenticated as it).
    const id = `${key.allowPrivateNetwork ? 'private' : 'public'} ${key.connectTimeoutMs} ${key.origin} ${key.clientCertificate?.id ?? '-'}`;
    let entry = this.#pools.get(id);
    if (entry === undefined) {
      entry = { pool: newPool({ ...key, proxy: this.#proxy }, null), users: 0 };
      this.#pools.set(id, entry);
    }
    entry.users++;
    const held = entry;
    let released = false;
    return {
      pool: held.pool,
      release: async () => {
        if (released) return;
        released = true;
        held.users--;
        if (held.users > 0 || this.#pools.get(id) !== held) return;
        this.#pools.delete(id);
        await held.pool.close();
      },
    };
  }

  /** Pools open now (for tests and metrics). */
  get size(): number {
    return this.#pools.size;
  }
}

/** A pool of `connections` at most (null: as many as requests in flight) under the key's rules. */
export function newPool(key: PoolKey, connections: number | null): Pool {
  const proxy = key.proxy ?? null;
  const viaProxy = proxy !== null && !bypassesProxy(proxy, new URL(key.origin).hostname);
  const tls =
    key.clientCertificate === undefined
      ? {}
      : { cert: key.clientCertificate.cert, key: key.clientCertificate.key };
  return new Pool(key.origin, {
    connections,
    keepAliveTimeout: KEEP_ALIVE_MS,
    connect: viaProxy
      ? proxyConnector(proxy, {
          allowPrivateNetwork: key.allowPrivateNetwork,
          timeoutMs: key.connectTimeoutMs,
          tls,
        })
      : {
          ...tls,
          timeout: key.connectTimeoutMs,
          ...(key.allowPrivateNetwork ? {} : { lookup: publicOnlyLookup }),
        },
  });
}
