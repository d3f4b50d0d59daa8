import { parseSubscriberSpec } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { privateDestinations } from '../src/destination-check.ts';

function spec(fields: Record<string, unknown>) {
  const parsed = parseSubscriberSpec({ name: 'aimed', ...fields });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const oauth2 = (tokenUrl: string) => ({
  tokenUrl,
  clientId: 'hookstream',
  clientSecret: { managed: true },
});

describe('privateDestinations', () => {
  it('names a loopback token URL, a private URL and localhost, written out', () => {
    expect(
      privateDestinations(
        spec({ url: 'https://hooks.example.com/', oauth2: oauth2('https://127.0.0.1/token') }),
      ),
    ).toEqual([{ path: 'oauth2.tokenUrl', message: expect.stringContaining('allowPrivateNetwork') }]);
    expect(privateDestinations(spec({ url: 'https://10.1.2.3/hook' })).map((p) => p.path)).toEqual(['url']);
    expect(privateDestinations(spec({ url: 'https://[::ffff:0:7f00:1]/hook' })).map((p) => p.path)).toEqual([
      'url',
    ]);
    expect(
      privateDestinations(
        spec({ url: 'https://api.localhost/', oauth2: oauth2('https://localhost:8443/t') }),
      ).map((p) => p.path),
    ).toEqual(['url', 'oauth2.tokenUrl']);
  });

  it('lets public addresses and names through, and everything with allowPrivateNetwork', () => {
    expect(
      privateDestinations(spec({ url: 'https://8.8.8.8/', oauth2: oauth2('https://auth.example.com/t') })),
    ).toEqual([]);
    expect(
      privateDestinations(
        spec({
          url: 'http://127.0.0.1:9/',
          allowPrivateNetwork: true,
          oauth2: oauth2('http://127.0.0.1:9/t'),
        }),
      ),
    ).toEqual([]);
  });
});
