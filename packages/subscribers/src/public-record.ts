import { redactUrl, type SubscriberRecord } from '@hookstream/contracts';

/** Where the secret comes from, never the secret. */
export function describeSecret(record: SubscriberRecord): string {
  const s = record.secret;
  if (s === undefined) return 'none (requests are unsigned)';
  if ('env' in s) return `from environment variable ${s.env}`;
  if ('file' in s) return `from file ${s.file}`;
  const previous =
    s.previous.length === 0
      ? ''
      : `, ${s.previous.length} previous until ${s.previous.map((p) => p.expiresAt).join(', ')}`;
  return `managed (sealed under key ${s.current.keyId}, since ${s.current.createdAt}${previous})`;
}

/**
 * The record as tools may show it: sealed material (a managed secret's or header's ciphertext)
 * replaced by what describes it, and the URLs redacted (redactUrl: no user info, no query
 * values), the OAuth2 token URL too. An env or file reference names where the secret lives, not the secret.
 */
export function publicRecord(record: SubscriberRecord) {
  const s = record.secret;
  const secret =
    s === undefined
      ? null
      : 'managed' in s
        ? {
            managed: true,
            keyId: s.current.keyId,
            createdAt: s.current.createdAt,
            previous: s.previous.map((p) => ({ expiresAt: p.expiresAt })),
          }
        : s;
  const sealedHeaders =
    record.sealedHeaders === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(record.sealedHeaders).map(([h, seal]) => [
            h,
            { keyId: seal.keyId, createdAt: seal.createdAt },
          ]),
        );
  const sealedCredentials =
    record.sealedCredentials === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(record.sealedCredentials).map(([c, seal]) => [
            c,
            { keyId: seal.keyId, createdAt: seal.createdAt },
          ]),
        );
  const { oauth2 } = record.definition;
  const definition = {
    ...record.definition,
    ...(record.definition.url === undefined ? {} : { url: redactUrl(record.definition.url) }),
    // The client secret is a variable's name already; a token URL may carry credentials as the URL may.
    ...(oauth2 === undefined ? {} : { oauth2: { ...oauth2, tokenUrl: redactUrl(oauth2.tokenUrl) } }),
  };
  return {
    ...record,
    definition,
    secret,
    ...(sealedHeaders === undefined ? {} : { sealedHeaders }),
    ...(sealedCredentials === undefined ? {} : { sealedCredentials }),
  };
}
