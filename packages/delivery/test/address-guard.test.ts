import { describe, expect, it } from 'vitest';
import { assertDestinationAllowed, assertPublicDestination, isPrivateAddress } from '../src/address-guard.ts';

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
    // IPv4-compatible, 6to4 and NAT64 addresses that embed a private IPv4 one.
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2002:c0a8:101::',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1:a9fe:a9:fe00::',
    // IPv4-mapped in hex, and IPv4-translated (::ffff:0:0:0/96): judged by the embedded address.
    '::ffff:7f00:1',
    '::ffff:0:7f00:1',
    '::ffff:0:a00:1',
    '::ffff:0:a9fe:a9fe',
    'fec0::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:db8::1',
    '3fff::1',
    '100::1',
    '192.0.2.10',
    '198.51.100.7',
    '203.0.113.99',
    'not-an-ip',
  ])('refuses %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b::8.8.8.8',
    '64:ff9b:1:808:8:800::',
    '::ffff:808:808',
    '::ffff:0:808:808',
  ])('allows %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

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

  it('plain http: to a public host needs allowInsecureHttp; inside a private network it is allowed', async () => {
    await expect(
      assertDestinationAllowed(new URL('http://8.8.8.8/x'), { allowPrivateNetwork: false }),
    ).rejects.toMatchObject({ code: 'INSECURE_DESTINATION', canRetry: false });
    await expect(
      assertDestinationAllowed(new URL('http://8.8.8.8/x'), { allowPrivateNetwork: true }),
    ).rejects.toThrow(/allowInsecureHttp/);
    await expect(
      assertDestinationAllowed(new URL('http://8.8.8.8/x'), {
        allowPrivateNetwork: false,
        allowInsecureHttp: true,
      }),
    ).resolves.toBeUndefined();
    await expect(
      assertDestinationAllowed(new URL('http://127.0.0.1:9/x'), { allowPrivateNetwork: true }),
    ).resolves.toBeUndefined();
    await expect(
      assertDestinationAllowed(new URL('https://8.8.8.8/x'), { allowPrivateNetwork: false }),
    ).resolves.toBeUndefined();
    await expect(
      assertDestinationAllowed(new URL('http://127.0.0.1:9/x'), { allowPrivateNetwork: false }),
    ).rejects.toMatchObject({ code: 'PRIVATE_DESTINATION' });
  });
});
