import { describe, expect, it } from 'vitest';
import { HookstreamError } from '../src/hookstream-error.ts';

class ThingError extends HookstreamError<'GONE' | 'BUSY'> {}

describe('HookstreamError', () => {
  it('carries a code, whether retrying can help, its cause, and the subclass name', () => {
    const cause = new Error('socket closed');
    const err = new ThingError('BUSY', 'the broker is busy', true, { cause });
    expect(err).toBeInstanceOf(HookstreamError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: 'ThingError',
      code: 'BUSY',
      canRetry: true,
      message: 'the broker is busy',
    });
    expect(err.cause).toBe(cause);
    const plain = new ThingError('GONE', 'no such thing', false);
    expect(plain.canRetry).toBe(false);
    expect('cause' in plain).toBe(false);
  });
});
