import { describe, expect, it } from 'vitest';
import { ConsoleAuth, parseConsoleTokens } from '../src/index.ts';

const A = 'token-a-0123456789';
const B = 'token-b-0123456789';

describe('ConsoleAuth', () => {
  it('opens a session for a configured token only, naming which token without holding it', () => {
    const auth = new ConsoleAuth({ tokens: [A, B] });
    expect(auth.login('token-c-0123456789')).toBeNull();
    expect(auth.login('')).toBeNull();
    expect(auth.login(A.slice(0, -1))).toBeNull();
    const session = auth.login(B);
    expect(session?.operator).toBe('console-token-2');
    expect(JSON.stringify(session)).not.toContain(B);
    expect(auth.session(session?.id)).toEqual(session);
    expect(auth.session('made-up')).toBeNull();
    expect(auth.session(undefined)).toBeNull();
  });

  it('gives each session its own random id and CSRF token', () => {
    const auth = new ConsoleAuth({ tokens: [A] });
    const one = auth.login(A);
    const two = auth.login(A);
    expect(one?.id).not.toBe(two?.id);
    expect(one?.csrfToken).not.toBe(two?.csrfToken);
    expect(one?.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('accepts only the session’s own CSRF token', () => {
    const auth = new ConsoleAuth({ tokens: [A] });
    const one = auth.login(A);
    const two = auth.login(A);
    if (one === null || two === null) throw new Error('login failed');
    expect(auth.checkCsrf(one, one.csrfToken)).toBe(true);
    expect(auth.checkCsrf(one, two.csrfToken)).toBe(false);
    expect(auth.checkCsrf(one, null)).toBe(false);
    expect(auth.checkCsrf(one, '')).toBe(false);
  });

  it('expires sessions, forgets logged-out ones, and bounds how many it keeps', () => {
    let now = 0;
    const auth = new ConsoleAuth({ tokens: [A], sessionTtlMs: 1000, maxSessions: 2, now: () => now });
    const first = auth.login(A);
    now = 999;
    expect(auth.session(first?.id)).not.toBeNull();
    now = 1000;
    expect(auth.session(first?.id)).toBeNull();
    const a = auth.login(A);
    const b = auth.login(A);
    const c = auth.login(A);
    expect(auth.session(a?.id)).toBeNull();
    expect(auth.session(b?.id)).not.toBeNull();
    auth.logout(c?.id ?? '');
    expect(auth.session(c?.id)).toBeNull();
  });
});

describe('parseConsoleTokens', () => {
  it('splits on commas and refuses short or missing tokens without echoing them', () => {
    expect(parseConsoleTokens(` ${A} ,${B},`)).toEqual([A, B]);
    expect(() => parseConsoleTokens(undefined)).toThrow(/CONSOLE_TOKENS is not set/);
    expect(() => parseConsoleTokens(' , ')).toThrow(/at least one token/);
    let message = '';
    try {
      parseConsoleTokens(`${A},short-secret`);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/at least 16 characters/);
    expect(message).not.toContain('short-secret');
  });
});
