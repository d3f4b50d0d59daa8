import { describe, expect, it } from 'vitest';
import { assertPublicDestination, isPrivateAddress } from '../src/address-guard.ts';

describe('address guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ])('refuses %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );

  it('refuses loopback and link-local URLs at start-up with a message that names the way out', async () => {
    await expect(assertPublicDestination(new URL('http://127.0.0.1:8080/x'))).rejects.toMatchObject({
      code: 'PRIVATE_DESTINATION',
      canRetry: false,
    });
    await expect(assertPublicDestination(new URL('http://[::1]/x'))).rejects.toThrow(/allowPrivateNetwork/);
    await expect(assertPublicDestination(new URL('http://localhost/x'))).rejects.toMatchObject({
      code: 'PRIVATE_DESTINATION',
    });
  });

  it('allows a public IP literal without any DNS', async () => {
    await expect(assertPublicDestination(new URL('https://8.8.8.8/x'))).resolves.toBeUndefined();
  });
});
