import { HEADER_VALUE_PATTERN, type HeaderValue } from '@hookstream/contracts';
import { PusherError } from './errors.ts';

/**
 * A definition's extra headers with `{ "env": "HOOKSTREAM_HEADER_…" }` values read from the
 * environment, once when the subscriber starts, and `{ "managed": true }` ones from `managed`
 * (opened from the catalog record's seals). A value that is missing, empty or not header text
 * refuses the start (naming the header and variable, never the value): sending without the
 * credential would only collect 401s.
 */
export function resolveHeaders(
  subscriber: string,
  headers: Readonly<Record<string, HeaderValue>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
  managed: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') {
      resolved[name] = value;
      continue;
    }
    if ('managed' in value) {
      const open = managed[name];
      if (open === undefined)
        throw new PusherError(
          'BAD_HEADER',
          `subscriber "${subscriber}": header ${name} is managed, and its sealed value was not given (a managed header needs the catalog and the secrets key)`,
          false,
        );
      resolved[name] = open;
      continue;
    }
    const text = env[value.env];
    if (text === undefined || text === '')
      throw new PusherError(
        'BAD_HEADER',
        `subscriber "${subscriber}": header ${name} comes from $${value.env}, which is not set`,
        false,
      );
    if (text.length > 8192 || !HEADER_VALUE_PATTERN.test(text))
      throw new PusherError(
        'BAD_HEADER',
        `subscriber "${subscriber}": $${value.env} (header ${name}) holds CR, LF, NUL or other control characters, or is over 8 KB`,
        false,
      );
    resolved[name] = text;
  }
  return resolved;
}
