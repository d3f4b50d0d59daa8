import { PublishError } from '@hookstream/producer';
import { describe, expect, it } from 'vitest';
import { HttpError, httpErrorFor } from '../src/errors.ts';

describe('httpErrorFor (the error table)', () => {
  it.each([
    ['INVALID_REQUEST', 400],
    ['INVALID_DATA', 400],
    ['RESERVED_FIELD', 400],
    ['UNKNOWN_TYPE', 400],
    ['KAFKA_UNAVAILABLE', 503],
    ['ACK_TIMEOUT', 503],
    ['REGISTRY_UNAVAILABLE', 503],
    ['CLOSED', 503],
    ['KAFKA_REJECTED', 500],
  ] as const)('%s -> %i', (code, status) => {
    const error = httpErrorFor(
      new PublishError(code, 'x', { details: [{ path: 'data.a', message: 'm' }] }),
      3,
    );
    expect(error.status).toBe(status);
    expect(error.code).toBe(code.toLowerCase());
    expect(error.retryAfterS).toBe(status === 503 ? 3 : null);
    expect(error.canRetry).toBe(status === 503);
  });

  it('answers 500 without internals for anything unexpected', () => {
    expect(httpErrorFor(new Error('secret detail'), 1).body()).toEqual({
      error: { code: 'internal', message: 'internal error' },
    });
  });

  it('puts details in the body only when there are some', () => {
    expect(new HttpError(401, 'unauthorized', 'no').body()).toEqual({
      error: { code: 'unauthorized', message: 'no' },
    });
    expect(new HttpError(400, 'x', 'y', { details: [1] }).body().error.details).toEqual([1]);
  });
});
