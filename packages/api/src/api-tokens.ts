import { TokenTable } from '@hookstream/ingress-http';
import type { Caller } from '@hookstream/management';

/**
 * The API's bearer tokens: `token=*` (the operator: everything) or `token@tenant` (that tenant's
 * subscribers only), comma-separated (HOOKSTREAM_API_TOKENS) or one per line with `#` comments
 * (HOOKSTREAM_API_TOKENS_FILE). The ingress's TokenTable keeps them (digests only, its minimum
 * length and tenant syntax); a caller is known by a short digest of its token, never the token.
 */
export class ApiTokens {
  readonly #table: TokenTable;

  private constructor(table: TokenTable) {
    this.#table = table;
  }

  /** Throws naming the entry (never the token) when one is neither form. */
  static parse(entries: readonly string[]): ApiTokens {
    entries.forEach((raw, i) => {
      const entry = raw.trim();
      if (entry === '' || entry.startsWith('#')) return;
      const operator = entry.endsWith('=*') && !entry.includes('@');
      const tenant = !entry.includes('=') && entry.includes('@');
      if (!operator && !tenant)
        throw new Error(`token entry ${i + 1}: write token=* (the operator) or token@tenant (one tenant)`);
    });
    const table = TokenTable.parse(entries, new Set(['*']));
    if (table.size === 0)
      throw new Error('no API token: set HOOKSTREAM_API_TOKENS or HOOKSTREAM_API_TOKENS_FILE');
    return new ApiTokens(table);
  }

  get size(): number {
    return this.#table.size;
  }

  /** The caller an `Authorization` header names, or null (no token, or an unknown one). */
  authorize(header: string | undefined): Caller | null {
    const grant = this.#table.authorize(header);
    if (grant === null) return null;
    const id = `tok_${grant.producer.slice(0, 16)}`;
    return grant.tenant === null
      ? { scope: { kind: 'operator' }, id }
      : { scope: { kind: 'tenant', tenant: grant.tenant }, id };
  }
}
