import { redactUrl, type SubscriberRecord } from '@hookstream/contracts';

/**
 * A definition as the console shows it: the signing secret lives outside it already (in the
 * record, shown by describeSecret), and what may still carry a credential is hidden too: a
 * password in the URL (or the OAuth2 token URL), and header values (an Authorization header is a password).
 */
export function publicDefinition(record: SubscriberRecord): Record<string, unknown> {
  const { definition } = record;
  const headers = Object.fromEntries(Object.keys(definition.headers).map((name) => [name, '(hidden)']));
  const { oauth2 } = definition;
  return {
    ...definition,
    ...(definition.url === undefined ? {} : { url: redactUrl(definition.url) }),
    headers,
    ...(oauth2 === undefined ? {} : { oauth2: { ...oauth2, tokenUrl: redactUrl(oauth2.tokenUrl) } }),
  };
}
