import { lookup } from 'node:dns';
import { lookup as lookupAsync } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DeliveryError } from './errors.ts';

// Addresses a subscriber must not reach: loopback, private, link-local (cloud metadata lives
// there), carrier-grade NAT, "this network", documentation, benchmarking, multicast and
// reserved space, IPv4 and IPv6. Prefixes that embed an IPv4 address are judged below.
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 32],
  ['2001:2::', 48],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');
// 2001::/32 is Teredo: the client's address is obfuscated in it, so the whole prefix is refused.

/** The 16 bytes of an IPv6 address (isIP already said it is one). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address an IPv6 one carries (IPv4-compatible, 6to4, NAT64), or null. */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const quad = (i: number) => b.slice(i, i + 4).join('.');
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 12)) return quad(12); // ::/96, IPv4-compatible (deprecated, still routed by some stacks)
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return quad(12); // ::ffff:0:0/96, IPv4-mapped in hex
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return quad(12); // ::ffff:0:0:0/96, IPv4-translated (RFC 2765)
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2); // 2002::/16, 6to4
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zeros(4, 12)) return quad(12); // 64:ff9b::/96, well-known NAT64
    // 64:ff9b:1::/48, local-use NAT64 (RFC 8215), RFC 6052's /48 layout: bits 64-71 are zero.
    if (b[4] === 0 && b[5] === 1) return [b[6], b[7], b[9], b[10]].join('.');
  }
  return null;
}

/** True for addresses outside the public internet (IPv4-mapped IPv6 judged by its IPv4 part). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  if (blocked.check(address, 'ipv6')) return true;
  const v4 = embeddedIpv4(address);
  return v4 !== null && blocked.check(v4, 'ipv4');
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

/** What a definition allows of its destination. */
export interface DestinationPolicy {
  readonly allowPrivateNetwork: boolean;
  readonly allowInsecureHttp?: boolean | undefined;
}

/**
 * The start-up check of a definition's destination: private addresses need allowPrivateNetwork
 * (see assertPublicDestination); plain http: to a public host needs allowInsecureHttp, since
 * the signed body, the subscriber's headers and any credentials in them would cross the
 * internet in clear. Plain http: inside a trusted private network is allowed.
 */
export async function assertDestinationAllowed(url: URL, policy: DestinationPolicy): Promise<void> {
  if (!policy.allowPrivateNetwork) await assertPublicDestination(url);
  if (url.protocol !== 'http:' || policy.allowInsecureHttp) return;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses =
    isIP(host) !== 0
      ? [host]
      : (await lookupAsync(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0 || addresses.some((a) => !isPrivateAddress(a)))
    throw new DeliveryError(
      'INSECURE_DESTINATION',
      `${url.origin} is plain http: to a public host, so deliveries would cross the internet unencrypted; ` +
        'use https:, or set "allowInsecureHttp": true in the definition',
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
