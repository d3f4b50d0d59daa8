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

/** A scheme and `//`: where a URL starts. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** A URL inside a message: from its scheme to the first space, quote or angle bracket. */
const URL_IN_TEXT = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s'"<>`]*/g;

/**
 * Text that may hold URLs which do not parse, as a refusal or an error shows it: a setting's
 * value that was meant as a URL, or a message quoting one (fetch's errors quote theirs whole).
 * User info shows as REDACTED (kept in place, so the reader sees it was there: an unescaped `@`,
 * `/` or `#` in a password is a usual reason a URL does not parse) and every query value as
 * REDACTED; the rest stays as written, so the reader still sees what was wrong. Text that starts
 * with a scheme is taken whole as one URL; one without a scheme but with an `@` and no space (a
 * URL missing its scheme) has everything before its last `@` redacted. Pure.
 */
export function redactUrlText(text: string): string {
  if (SCHEME.test(text.trimStart())) return redactOneUrl(text);
  if (!text.includes('://') && !/\s/.test(text) && text.includes('@'))
    return redactQueryValues(`${REDACTED}@${text.slice(text.lastIndexOf('@') + 1)}`);
  // Punctuation that ends a sentence after a URL is the message's, not the URL's.
  return text.replace(URL_IN_TEXT, (url) => {
    const end = /[.,:;!)\]]*$/.exec(url)?.index ?? url.length;
    return redactOneUrl(url.slice(0, end)) + url.slice(end);
  });
}

/** One URL as written: its user info and query values replaced, nothing else touched. */
function redactOneUrl(url: string): string {
  const start = url.indexOf('://') + 3;
  const rest = url.slice(start);
  // A URL that parses ends its authority at the first `/`, `?`, `#` or `\`; one that does not
  // may have any of them in its password, so everything up to its last `@` is user info.
  const authorityEnd = URL.canParse(url.trim()) ? rest.search(/[/?#\\]|$/) : rest.length;
  const at = rest.lastIndexOf('@', authorityEnd);
  const shown = at === -1 ? rest : `${REDACTED}@${rest.slice(at + 1)}`;
  return url.slice(0, start) + redactQueryValues(shown);
}

/** Every `name=value` of the query (from the first `?` up to a `#`) as `name=REDACTED`. */
function redactQueryValues(rest: string): string {
  const q = rest.indexOf('?');
  if (q === -1) return rest;
  const hash = rest.indexOf('#', q);
  const end = hash === -1 ? rest.length : hash;
  const query = rest.slice(q, end).replace(/([?&;][^=&;#]*)=[^&;#]*/g, `$1=${REDACTED}`);
  return rest.slice(0, q) + query + rest.slice(end);
}
