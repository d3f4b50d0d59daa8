import { z } from 'zod';

/**
 * The only variables a definition's `{ "env": … }` header value may name. A definition comes
 * from whoever can write the catalog; a free choice of variable would let it copy any of the
 * fleet's own settings (its secrets key, Kafka or cloud credentials) into a request to its URL.
 * hookstream names none of its own settings with this prefix or the secret one.
 */
export const HEADER_ENV_PREFIX = 'HOOKSTREAM_HEADER_';

/** The only variables a definition's `{ "env": … }` signing secret may name (see above). */
export const SECRET_ENV_PREFIX = 'HOOKSTREAM_SECRET_';

/**
 * The only variables a definition's OAuth2 `clientSecret` may name. Its own prefix, not the
 * signing secret's: the client secret is sent to the definition's token URL, so a shared prefix
 * would let a definition send another subscriber's signing secret there.
 */
export const OAUTH_ENV_PREFIX = 'HOOKSTREAM_OAUTH_';

/** The only variables a definition's client certificate `key` (PEM) may name (see above). */
export const CLIENT_KEY_ENV_PREFIX = 'HOOKSTREAM_CLIENT_KEY_';

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `{ "env": "<prefix>…" }`: a variable of the process's environment that carries this prefix. */
export function envReference(prefix: string) {
  return z.strictObject({
    // A pattern rather than a refinement, so the API's document states the rule too.
    env: z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9_]+$`), {
      error: (issue) =>
        VARIABLE_NAME.test(String(issue.input))
          ? `may name only a variable starting with ${prefix} (a definition cannot read the process's own settings or secrets), not ${JSON.stringify(issue.input)}`
          : `an environment variable name starting with ${prefix}`,
    }),
  });
}
