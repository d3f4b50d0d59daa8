import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlText } from '../src/index.ts';

describe('redactUrl', () => {
  it.each([
    ['https://hooks.example.com/in', 'https://hooks.example.com/in'],
    ['https://user:pass@hooks.example.com/in', 'https://hooks.example.com/in'],
    ['https://api-key-as-user@hooks.example.com/in', 'https://hooks.example.com/in'],
    ['https://:pass@hooks.example.com:8443/in', 'https://hooks.example.com:8443/in'],
    ['https://hooks.example.com/in?token=abc&v=2', 'https://hooks.example.com/in?token=REDACTED&v=REDACTED'],
    ['https://hooks.example.com/in?a=1&a=2', 'https://hooks.example.com/in?a=REDACTED'],
    ['https://hooks.example.com/in?flag', 'https://hooks.example.com/in?flag=REDACTED'],
    ['https://u:p@hooks.example.com/in?sig=s#frag', 'https://hooks.example.com/in?sig=REDACTED#frag'],
    ['redis://:redis-secret@redis.internal:6379/2', 'redis://redis.internal:6379/2'],
    ['not a url', '(unparsable URL)'],
  ])('%s shows as %s', (raw, shown) => {
    expect(redactUrl(raw)).toBe(shown);
    if (shown !== '(unparsable URL)') expect(redactUrl(new URL(raw))).toBe(shown);
  });

  it('leaves the URL object it is given untouched', () => {
    const url = new URL('https://user:pass@hooks.example.com/in?token=abc');
    redactUrl(url);
    expect(url.href).toBe('https://user:pass@hooks.example.com/in?token=abc');
  });
});

describe('passwords are not echoed: redactUrlText', () => {
  it.each([
    // Not URLs (a password's `#`, `/` or a port out of range): the rest still says what is wrong.
    ['http://user:p#ss@proxy:3128', 'http://REDACTED@proxy:3128'],
    ['http://user:pa/ss@proxy:3128', 'http://REDACTED@proxy:3128'],
    ['http://user:s3cret@proxy:31280000', 'http://REDACTED@proxy:31280000'],
    ['redis://:s3cret@redis:6379x?password=s3cret', 'redis://REDACTED@redis:6379x?password=REDACTED'],
    ['user:s3cret@redis:6379', 'REDACTED@redis:6379'],
    // URLs: user info and query values, nothing else touched (no trailing slash added).
    ['http://user:pa ss@host', 'http://REDACTED@host'],
    ['https://ops:s3cret@registry.internal', 'https://REDACTED@registry.internal'],
    [
      'https://h.example.com/p?email=a@b.c&k=s3cret#top',
      'https://h.example.com/p?email=REDACTED&k=REDACTED#top',
    ],
    ['http://proxy:3128', 'http://proxy:3128'],
    // Not a URL at all: left as it is.
    ['a b', 'a b'],
    ['acme-token@acme is bound', 'acme-token@acme is bound'],
  ])('%s shows as %s', (raw, shown) => {
    expect(redactUrlText(raw)).toBe(shown);
  });

  it('redacts every URL a message quotes, as fetch quotes one with user info', () => {
    const message =
      'GET /v1/subscribers: cannot reach http://u:s3cret@127.0.0.1:1: Request cannot be constructed from a URL that includes credentials: http://u:s3cret@127.0.0.1:1/v1/subscribers?k=s3cret';
    const shown = redactUrlText(message);
    expect(shown).not.toContain('s3cret');
    expect(shown).toBe(
      'GET /v1/subscribers: cannot reach http://REDACTED@127.0.0.1:1: Request cannot be constructed from a URL that includes credentials: http://REDACTED@127.0.0.1:1/v1/subscribers?k=REDACTED',
    );
  });
});
