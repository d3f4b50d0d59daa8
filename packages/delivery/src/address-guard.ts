import { lookup } from 'node:dns';
import { lookup as lookupAsync } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DeliveryError } from './errors.ts';

// Addresses a subscriber must not reach: loopback, private, link-local (cloud metadata lives
// there), carrier-grade NAT, "this network", multicast and reserved space, IPv4 and IPv6.
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** True for addresses outside the public internet (IPv4-mapped IPv6 judged by its IPv4 part). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

/**
 * Checks a destination once at start-up, so a bad definition fails with a clear message.
 * The connect-time guard below still applies, because DNS answers change.
 */
export async function assertPublicDestination(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookupAsync(host, { all: true })).map((a) => a.address);
    } catch (err) {
      throw new DeliveryError('UNRESOLVABLE_DESTINATION', `cannot resolve ${host}: ${String(err)}`, true);
    }
  }
  const refused = addresses.filter(isPrivateAddress);
  if (refused.length > 0)
    throw new DeliveryError(
      'PRIVATE_DESTINATION',
      `${url.origin} resolves to ${refused.join(', ')}, a private, loopback or link-local address; ` +
        'set "allowPrivateNetwork": true in the definition only for a trusted internal endpoint',
      false,
    );
}

/**
 * A dns lookup for the HTTP connector that refuses private answers at connect time, so a DNS
 * record changed after start-up (rebinding) cannot aim the pusher at an internal service.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const allowed = addresses.filter((a) => !isPrivateAddress(a.address));
    const first = allowed[0];
    if (first === undefined) {
      const refused = Object.assign(new Error(`${hostname} resolves only to private addresses`), {
        code: 'EPRIVATEADDR',
      });
      return callback(refused, '', 0);
    }
    // net.connect asks for all addresses when autoSelectFamily is on, one otherwise.
    if (options.all) return (callback as unknown as (e: null, a: typeof allowed) => void)(null, allowed);
    callback(null, first.address, first.family);
  });
};
