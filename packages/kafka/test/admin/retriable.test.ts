import { describe, expect, it } from 'vitest';
import { retryRetriable } from '../../src/admin/retriable.ts';

function kafkaError(retriable: boolean): Error {
  return Object.assign(new Error('This is not the correct coordinator for this group'), { retriable });
}

describe('retryRetriable', () => {
  it('calls again while the error is retriable, then returns the answer', async () => {
    let calls = 0;
    const answer = await retryRetriable(
      async () => {
        calls++;
        if (calls < 3) throw kafkaError(true);
        return 'offsets';
      },
      5,
      1,
    );
    expect([answer, calls]).toEqual(['offsets', 3]);
  });

  it('throws a non-retriable error at once', async () => {
    let calls = 0;
    const failing = retryRetriable(
      async () => {
        calls++;
        throw kafkaError(false);
      },
      5,
      1,
    );
    await expect(failing).rejects.toThrow(/coordinator/);
    expect(calls).toBe(1);
  });

  it('gives up after the last attempt', async () => {
    let calls = 0;
    const failing = retryRetriable(
      async () => {
        calls++;
        throw kafkaError(true);
      },
      3,
      1,
    );
    await expect(failing).rejects.toThrow(/coordinator/);
    expect(calls).toBe(3);
  });
});
