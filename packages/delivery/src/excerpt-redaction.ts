/** What a credential found in an answer's excerpt becomes. */
export const REDACTED = '[redacted]';

/**
 * The shortest start of a credential that is redacted when the excerpt ends in it (the excerpt
 * was cut in the middle of an echoed secret). Shorter starts are ordinary text too often to tell.
 */
export const MIN_CUT_PREFIX_CHARS = 8;

/** Values this short are not secrets worth the name, and would blank ordinary words. */
const MIN_CREDENTIAL_CHARS = 4;

/**
 * The excerpt with every occurrence of each credential replaced by `[redacted]`, and, when the
 * excerpt ends in the first MIN_CUT_PREFIX_CHARS or more characters of a credential, that end
 * too: an endpoint that echoes the request back must not show its secrets, whole or cut. Pure;
 * the credentials are the request's (credentialForms of each), longest redacted first.
 */
export function redactCredentials(excerpt: string, credentials: readonly string[]): string {
  if (excerpt === '' || credentials.length === 0) return excerpt;
  const longestFirst = credentials
    .filter((c) => c.length >= MIN_CREDENTIAL_CHARS)
    .sort((a, b) => b.length - a.length);
  let text = excerpt;
  for (const credential of longestFirst)
    if (text.includes(credential)) text = text.split(credential).join(REDACTED);
  const cut = longestCutPrefix(text, longestFirst);
  return cut === 0 ? text : `${text.slice(0, text.length - cut)}${REDACTED}`;
}

/**
 * The length of the longest end of `text` that starts one of the credentials (0: none). Only
 * where a credential's first MIN_CUT_PREFIX_CHARS occur is looked at, so an excerpt without them
 * costs one search per credential.
 */
function longestCutPrefix(text: string, credentials: readonly string[]): number {
  let longest = 0;
  for (const credential of credentials) {
    if (credential.length <= MIN_CUT_PREFIX_CHARS) continue;
    const head = credential.slice(0, MIN_CUT_PREFIX_CHARS);
    // A whole credential is already redacted: a cut one is shorter than it.
    const from = Math.max(0, text.length - credential.length + 1);
    for (let at = text.indexOf(head, from); at >= 0; at = text.indexOf(head, at + 1)) {
      const end = text.length - at;
      if (end > longest && credential.startsWith(text.slice(at))) longest = end;
    }
  }
  return longest;
}

/** `Bearer x`, `Basic x`, `Token x`: a scheme word and its credentials. */
const SCHEME = /^([A-Za-z][A-Za-z0-9._-]*) +(\S.*)$/;

/**
 * The forms in which a header value may come back in an answer: the value; its part after an
 * auth scheme (`Bearer <token>`), and for Basic the decoded `user:password` and the password;
 * each Standard Webhooks signature (`v1,<mac>`) and its MAC; and each of these URL-encoded when
 * that differs (an endpoint echoing a query string or a form).
 */
export function credentialForms(value: string): string[] {
  const forms = new Set<string>([value]);
  const scheme = SCHEME.exec(value);
  if (scheme?.[1] !== undefined && scheme[2] !== undefined) {
    forms.add(scheme[2]);
    if (scheme[1].toLowerCase() === 'basic') for (const form of basicForms(scheme[2])) forms.add(form);
  }
  for (const signature of value.split(' ')) {
    const mac = /^v1a?,(.+)$/.exec(signature)?.[1];
    if (mac === undefined) continue;
    forms.add(signature);
    forms.add(mac);
  }
  for (const form of [...forms]) {
    const encoded = encodeURIComponent(form);
    if (encoded !== form) forms.add(encoded);
  }
  return [...forms];
}

/** A Basic credential's decoded `user:password` and its password, when it decodes to one. */
function basicForms(encoded: string): string[] {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? [] : [decoded, decoded.slice(colon + 1)];
}

/** A signing key as its owner wrote it: `whsec_<base64>`, and the base64 alone. */
export function signingSecretForms(key: Buffer): string[] {
  const encoded = key.toString('base64');
  return [`whsec_${encoded}`, encoded];
}
