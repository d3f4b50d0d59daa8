import { describe, expect, it } from 'vitest';
import { RequestGuard } from '../src/index.ts';

describe('RequestGuard.reachedOverHttps', () => {
  const guard = new RequestGuard({
    host: '127.0.0.1',
    port: 8090,
    publicOrigins: ['https://ops.example.test', 'http://plain.example.test:8080'],
  });

  it.each([
    ['ops.example.test', true],
    ['OPS.example.test', true],
    ['plain.example.test:8080', false],
    ['127.0.0.1:8090', false],
    [undefined, false],
  ])('%s: %s', (host, secure) => {
    expect(guard.reachedOverHttps(host)).toBe(secure);
  });

  it('is never true without an https public origin', () => {
    expect(new RequestGuard({ host: '127.0.0.1', port: 8090 }).reachedOverHttps('127.0.0.1:8090')).toBe(
      false,
    );
  });
});
