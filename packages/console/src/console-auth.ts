import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** One logged-in browser: its cookie id and the CSRF token its forms carry. */
export interface ConsoleSession {
  readonly id: string;
  readonly csrfToken: string;
  /** Which configured token logged in (its position, from 1): who acted, without the token. */
  readonly operator: string;
  readonly expiresAtMs: number;
}

export interface ConsoleAuthOptions {
  /** The accepted tokens (CONSOLE_TOKENS). */
  readonly tokens: readonly string[];
  readonly sessionTtlMs?: number;
  /** Sessions kept at most; the oldest goes first, so a flood of logins cannot grow memory. */
  readonly maxSessions?: number;
  readonly now?: () => number;
}

const DEFAULT_TTL_MS = 12 * 3_600_000;

/**
 * Tokens and sessions. Tokens are compared in constant time (each one, always all of them,
 * through a SHA-256 of both sides so lengths leak nothing); a session is a random id in an
 * HttpOnly cookie, and its CSRF token is compared the same way on every POST.
 */
export class ConsoleAuth {
  readonly #tokenDigests: readonly Buffer[];
  readonly #sessions = new Map<string, ConsoleSession>();
  readonly #ttlMs: number;
  readonly #maxSessions: number;
  readonly #now: () => number;

  constructor(options: ConsoleAuthOptions) {
    this.#tokenDigests = options.tokens.map(digest);
    this.#ttlMs = options.sessionTtlMs ?? DEFAULT_TTL_MS;
    this.#maxSessions = options.maxSessions ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** A new session when `token` is one of the configured tokens; null otherwise. */
  login(token: string): ConsoleSession | null {
    const given = digest(token);
    let matched = 0;
    // Every token is compared, whatever matched first: the time taken says nothing of which.
    this.#tokenDigests.forEach((d, i) => {
      if (timingSafeEqual(d, given) && matched === 0) matched = i + 1;
    });
    if (matched === 0) return null;
    this.#evict();
    const session = {
      id: randomBytes(32).toString('base64url'),
      csrfToken: randomBytes(32).toString('base64url'),
      operator: `console-token-${matched}`,
      expiresAtMs: this.#now() + this.#ttlMs,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session a cookie value names, or null (unknown, expired). */
  session(id: string | undefined): ConsoleSession | null {
    if (id === undefined) return null;
    const session = this.#sessions.get(id);
    if (session === undefined) return null;
    if (session.expiresAtMs <= this.#now()) {
      this.#sessions.delete(id);
      return null;
    }
    return session;
  }

  /** Whether a form's CSRF field is the session's token (constant time). */
  checkCsrf(session: ConsoleSession, given: string | null): boolean {
    if (given === null) return false;
    return timingSafeEqual(digest(session.csrfToken), digest(given));
  }

  logout(id: string): void {
    this.#sessions.delete(id);
  }

  #evict(): void {
    const now = this.#now();
    for (const [id, s] of this.#sessions) if (s.expiresAtMs <= now) this.#sessions.delete(id);
    while (this.#sessions.size >= this.#maxSessions) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done) break;
      this.#sessions.delete(oldest.value);
    }
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
