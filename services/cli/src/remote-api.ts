import { ApiClient, ApiClientOptions } from '@hookstream/api-client';
import { HookstreamError } from '@hookstream/contracts';
import { z } from 'zod';
import { refuseConnections } from './runtime-endpoints.ts';

/** Remote mode's settings, parsed once: a bad one names its flag or variable. */
export const RemoteApiSettings = z.object({
  // The client's own rule (http or https, no user info), so a refusal names --api or the variable.
  url: ApiClientOptions.shape.baseUrl,
  token: z
    .string()
    .min(1)
    .max(4096)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
});
export type RemoteApiSettings = z.infer<typeof RemoteApiSettings>;

/**
 * The management API a command runs against: `--api <url>` (else HOOKSTREAM_API_URL) with the
 * bearer token in HOOKSTREAM_API_TOKEN; null when neither names a URL (the command runs on Kafka).
 * In remote mode the process opens no Kafka connection (refuseConnections), so the operator's
 * machine needs no Kafka settings and any left in its environment are never read.
 */
export function remoteApi(flag: string | undefined, env: NodeJS.ProcessEnv): ApiClient | null {
  const from = flag === undefined ? 'HOOKSTREAM_API_URL' : '--api';
  const url = flag ?? (env.HOOKSTREAM_API_URL === '' ? undefined : env.HOOKSTREAM_API_URL);
  if (url === undefined) return null;
  const token = env.HOOKSTREAM_API_TOKEN === '' ? undefined : env.HOOKSTREAM_API_TOKEN;
  if (token === undefined)
    throw new HookstreamError(
      'BAD_CONFIG',
      `${from} needs HOOKSTREAM_API_TOKEN: a token of the API's HOOKSTREAM_API_TOKENS (the operator's or a tenant's)`,
      false,
    );
  const result = RemoteApiSettings.safeParse({ url, token });
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path[0] === 'token' ? 'HOOKSTREAM_API_TOKEN' : from;
    throw new HookstreamError('BAD_CONFIG', `${field}: ${issue?.message ?? 'bad value'}`, false);
  }
  refuseConnections('remote mode (--api)');
  return new ApiClient({ baseUrl: result.data.url, token: result.data.token });
}

/** The management API of a command that runs only against it; BAD_CONFIG, naming both ways, without one. */
export function requiredRemoteApi(
  command: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): ApiClient {
  const client = remoteApi(flag, env);
  if (client === null)
    throw new HookstreamError(
      'BAD_CONFIG',
      `${command} runs against the management API: --api <url> or HOOKSTREAM_API_URL`,
      false,
    );
  return client;
}
