import { hash } from 'node:crypto';
import { isNoticeType, MAX_TENANT_LENGTH, TenantId } from '@hookstream/contracts';

/** Shortest token accepted: shorter ones are guessable. */
export const MIN_TOKEN_LENGTH = 16;

export interface TokenGrant {
  /** Event types this token may publish; null = every type. */
  readonly types: ReadonlySet<string> | null;
  /**
   * The tenant every event this token publishes carries (`token@tenant`); a request naming
   * another is refused. null: unbound, an operator's token, which may name any tenant or none.
   */
  readonly tenant: string | null;
  /**
   * Who publishes with this token (a digest of it, never the token): event ids are
   * deduplicated, and requests rate-limited, per producer.
   */
  readonly producer: string;
}

/**
 * Bearer tokens and what each may publish. Written as `token[=type|type][@tenant]`, separated
 * by commas (INGRESS_TOKENS) or one per line with `#` comments (a tokens file); a token itself
 * holds no `=`, `@`, `,` or space. Tokens are kept only as SHA-256 digests, so lookups do not
 * compare secrets byte by byte.
 */
export class TokenTable {
  readonly #grants = new Map<string, TokenGrant>();

  /** Parses entries; throws naming the entry (never the token) when one is unusable. */
  static parse(entries: readonly string[], knownTypes: ReadonlySet<string>): TokenTable {
    const table = new TokenTable();
    entries.forEach((raw, i) => {
      const entry = raw.trim();
      if (entry === '' || entry.startsWith('#')) return;
      // Neither a type list nor a tenant holds an `@`, so the last one starts the tenant.
      const at = entry.lastIndexOf('@');
      const tenant = at === -1 ? null : entry.slice(at + 1);
      const [token = '', types] = (at === -1 ? entry : entry.slice(0, at)).split('=', 2);
      if (token.length < MIN_TOKEN_LENGTH || /[\s@]/.test(token)) {
        throw new Error(
          `token entry ${i + 1}: a token needs at least ${MIN_TOKEN_LENGTH} characters and no spaces or @`,
        );
      }
      if (tenant !== null && !TenantId.safeParse(tenant).success) {
        throw new Error(
          `token entry ${i + 1}: the tenant after @ needs 1 to ${MAX_TENANT_LENGTH} letters, digits, ".", "_", ":" or "-"`,
        );
      }
      let allowed: Set<string> | null = null;
      if (types !== undefined) {
        allowed = new Set(types.split('|').map((t) => t.trim()));
        const unknown = [...allowed].filter((t) => !knownTypes.has(t));
        if (unknown.length > 0)
          throw new Error(`token entry ${i + 1}: unknown event type(s) ${unknown.join(', ')}`);
        const reserved = [...allowed].filter(isNoticeType);
        if (reserved.length > 0)
          throw new Error(
            `token entry ${i + 1}: ${reserved.join(', ')} reserved: only hookstream publishes its notices, no token may`,
          );
      }
      const key = digest(token);
      const earlier = table.#grants.get(key);
      // Listed twice with two tenants, which one binds it would be an accident of order.
      if (earlier !== undefined && earlier.tenant !== tenant)
        throw new Error(`token entry ${i + 1}: this token is listed before, bound to another tenant`);
      table.#grants.set(key, { types: allowed, tenant, producer: key.slice(0, 32) });
    });
    return table;
  }

  get size(): number {
    return this.#grants.size;
  }

  /** The grant for an `Authorization` header value, or null when it carries no known token. */
  authorize(header: string | undefined): TokenGrant | null {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match?.[1]) return null;
    return this.#grants.get(digest(match[1])) ?? null;
  }
}

function digest(token: string): string {
  return hash('sha256', token);
}
