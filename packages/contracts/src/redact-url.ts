/** What a redacted query value reads as: its name is kept, for debugging. */
export const REDACTED = 'REDACTED';

/**
 * A URL as logs, traces, the console and the tools may show it: user info is dropped (a
 * password, or a username that is itself a key) and every query value is replaced, since signed
 * URLs and API keys often live there. Scheme, host, port, path and the query's names stay.
 * One rule for every place a subscriber's or a service's URL is shown.
 */
export function redactUrl(url: string | URL): string {
  let copy: URL;
  try {
    copy = new URL(typeof url === 'string' ? url : url.href);
  } catch {
    return '(unparsable URL)';
  }
  copy.username = '';
  copy.password = '';
  for (const name of new Set(copy.searchParams.keys())) copy.searchParams.set(name, REDACTED);
  return copy.href;
}
