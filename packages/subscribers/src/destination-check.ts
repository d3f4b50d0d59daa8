import { isIP } from 'node:net';
import type { SubscriberSpec } from '@hookstream/contracts';
import { isPrivateAddress } from '@hookstream/delivery';

/** A field of a definition that aims at a private address without `allowPrivateNetwork`. */
export interface PrivateDestination {
  readonly path: 'url' | 'oauth2.tokenUrl';
  readonly message: string;
}

/**
 * The URLs of a definition (`url`, `oauth2.tokenUrl`) whose host is a private address written
 * out (an IP literal, or `localhost`), refused when it is written rather than when a fleet first
 * starts it. Names that resolve to private addresses are refused at connect time, as before:
 * DNS answers change, so a write cannot judge them. Pure.
 */
export function privateDestinations(spec: SubscriberSpec): PrivateDestination[] {
  if (spec.allowPrivateNetwork) return [];
  const urls: [PrivateDestination['path'], string | undefined][] = [
    ['url', spec.url],
    ['oauth2.tokenUrl', spec.oauth2?.tokenUrl],
  ];
  return urls.flatMap(([path, url]) =>
    url !== undefined && isPrivateHost(new URL(url).hostname)
      ? [{ path, message: 'a private address; only with "allowPrivateNetwork": true (the operator\'s)' }]
      : [],
  );
}

function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isPrivateAddress(host);
}
