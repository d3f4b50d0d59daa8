import { describe, expect, it } from 'vitest';
import { PusherError } from '../src/errors.ts';
import { resolveHeaders } from '../src/header-values.ts';

describe('resolveHeaders', () => {
  it('passes text through and reads { env } values from the environment', () => {
    expect(
      resolveHeaders(
        'billing',
        { 'X-Team': 'billing', Authorization: { env: 'HOOKSTREAM_HEADER_TOKEN' } },
        { HOOKSTREAM_HEADER_TOKEN: 'Bearer abc' },
      ),
    ).toEqual({ 'X-Team': 'billing', Authorization: 'Bearer abc' });
  });

  it('takes { managed: true } values from the opened seals, and refuses one not given', () => {
    expect(resolveHeaders('billing', { 'X-Key': { managed: true } }, {}, { 'X-Key': 'k-1' })).toEqual({
      'X-Key': 'k-1',
    });
    expect(() => resolveHeaders('billing', { 'X-Key': { managed: true } }, {})).toThrow(
      expect.objectContaining({
        code: 'BAD_HEADER',
        message: expect.stringContaining('header X-Key is managed'),
      }),
    );
  });

  it.each([
    [{}, /header Authorization comes from \$HOOKSTREAM_HEADER_TOKEN, which is not set/],
    [{ HOOKSTREAM_HEADER_TOKEN: '' }, /which is not set/],
    [
      { HOOKSTREAM_HEADER_TOKEN: 'Bearer abc\r\nX-Injected: 1' },
      /\$HOOKSTREAM_HEADER_TOKEN \(header Authorization\) holds CR, LF, NUL/,
    ],
    [{ HOOKSTREAM_HEADER_TOKEN: 'a\u0000b' }, /holds CR, LF, NUL/],
    [{ HOOKSTREAM_HEADER_TOKEN: 'x'.repeat(9000) }, /over 8 KB/],
  ])('refuses the start, naming the variable and never the value: %j', (env, message) => {
    let error: unknown;
    try {
      resolveHeaders('billing', { Authorization: { env: 'HOOKSTREAM_HEADER_TOKEN' } }, env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PusherError);
    expect(error).toMatchObject({ code: 'BAD_HEADER', canRetry: false });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('Bearer');
  });
});
