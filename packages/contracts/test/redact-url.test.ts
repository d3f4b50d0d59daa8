import { describe, expect, it } from 'vitest';
import { redactUrl } from '../src/index.ts';

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
