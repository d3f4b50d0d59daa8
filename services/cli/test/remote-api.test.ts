import { describe, expect, it } from 'vitest';
import { remoteApi } from '../src/remote-api.ts';
import { runtimeConnection } from '../src/runtime-endpoints.ts';

const TOKEN = 'remote-token-0123456789';

describe('remote mode settings', () => {
  it('is off without --api or HOOKSTREAM_API_URL (an empty one is unset)', () => {
    expect(remoteApi(undefined, { HOOKSTREAM_API_TOKEN: TOKEN })).toBeNull();
    expect(remoteApi(undefined, { HOOKSTREAM_API_URL: '', HOOKSTREAM_API_TOKEN: TOKEN })).toBeNull();
  });

  it('fails fast naming HOOKSTREAM_API_TOKEN when it is missing, and the flag or variable of a bad URL', () => {
    expect(() => remoteApi('http://127.0.0.1:8070', {})).toThrow(/--api needs HOOKSTREAM_API_TOKEN/);
    expect(() =>
      remoteApi(undefined, { HOOKSTREAM_API_URL: 'http://x:1', HOOKSTREAM_API_TOKEN: '' }),
    ).toThrow(/HOOKSTREAM_API_URL needs HOOKSTREAM_API_TOKEN/);
    expect(() => remoteApi('ftp://x', { HOOKSTREAM_API_TOKEN: TOKEN })).toThrow(/^--api: /);
    expect(() => remoteApi('http://x:1', { HOOKSTREAM_API_TOKEN: 'two words' })).toThrow(
      /^HOOKSTREAM_API_TOKEN: /,
    );
  });

  it('passwords are not echoed: a URL with user info is refused naming --api or HOOKSTREAM_API_URL', () => {
    for (const [flag, env, name] of [
      ['http://ops:s3cret@api.internal:8070', {}, '--api'],
      [undefined, { HOOKSTREAM_API_URL: 'https://ops:s3cret@api.internal' }, 'HOOKSTREAM_API_URL'],
    ] as const) {
      let message = '';
      try {
        remoteApi(flag, { ...env, HOOKSTREAM_API_TOKEN: TOKEN });
      } catch (err) {
        expect(err).toMatchObject({ code: 'BAD_CONFIG', canRetry: false });
        message = (err as Error).message;
      }
      expect(message).toBe(`${name}: no user:password@ (the bearer token authenticates)`);
      expect(message).not.toContain('s3cret');
    }
  });

  // Last: from here on this process refuses Kafka connections, as a remote command does.
  it('gives a client of the URL, and from then on no Kafka connection can be opened', () => {
    const api = remoteApi(undefined, {
      HOOKSTREAM_API_URL: 'http://127.0.0.1:8070/',
      HOOKSTREAM_API_TOKEN: TOKEN,
    });
    expect(api?.baseUrl).toBe('http://127.0.0.1:8070');
    expect(() => runtimeConnection()).toThrow(/remote mode \(--api\) opens no Kafka connection/);
  });
});
