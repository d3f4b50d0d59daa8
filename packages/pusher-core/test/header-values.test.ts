import { describe, expect, it } from 'vitest';
import { PusherError } from '../src/errors.ts';
import { resolveHeaders } from '../src/header-values.ts';

describe('resolveHeaders', () => {
  it('passes text through and reads { env } values from the environment', () => {
    expect(
      resolveHeaders(
        'billing',
        { 'X-Team': 'billing', Authorization: { env: 'TOKEN' } },
        { TOKEN: 'Bearer abc' },
      ),
    ).toEqual({ 'X-Team': 'billing', Authorization: 'Bearer abc' });
  });

  it.each([
    [{}, /header Authorization comes from \$TOKEN, which is not set/],
    [{ TOKEN: '' }, /which is not set/],
    [{ TOKEN: 'Bearer abc\r\nX-Injected: 1' }, /\$TOKEN \(header Authorization\) holds CR, LF, NUL/],
    [{ TOKEN: 'a\u0000b' }, /holds CR, LF, NUL/],
    [{ TOKEN: 'x'.repeat(9000) }, /over 8 KB/],
  ])('refuses the start, naming the variable and never the value: %j', (env, message) => {
    let error: unknown;
    try {
      resolveHeaders('billing', { Authorization: { env: 'TOKEN' } }, env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PusherError);
    expect(error).toMatchObject({ code: 'BAD_HEADER', canRetry: false });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('Bearer');
  });
});
