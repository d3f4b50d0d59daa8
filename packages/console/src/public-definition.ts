import { redactUrl, type SubscriberRecord } from '@hookstream/contracts';

/**
 * A definition as the console shows it: the signing secret lives outside it already (in the
 * record, shown by describeSecret), and what may still carry a credential is hidden too: a
 * password in the URL, and header values (an Authorization header is a password).
 */
export function publicDefinition(record: SubscriberRecord): Record<string, unknown> {
  const { definition } = record;
  const headers = Object.fromEntries(Object.keys(definition.headers).map((name) => [name, '(hidden)']));
  return { ...definition, url: redactUrl(definition.url), headers };
}
