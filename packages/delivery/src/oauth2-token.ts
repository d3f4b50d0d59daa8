import type { Dispatcher } from 'undici';
import type { BearerGrant } from './token-cache.ts';

/** Error codes of a failure to get a token: not the destination's (policy.ts). */
export const OAUTH2_TOKEN_CODE_PREFIX = 'OAUTH2_TOKEN_';

export type TokenFailureCode =
  /** No connection, or it broke (the egress proxy's failures too). */
  | 'OAUTH2_TOKEN_UNREACHABLE'
  | 'OAUTH2_TOKEN_TIMEOUT'
  /** 5xx or 429: the token endpoint's own trouble. */
  | 'OAUTH2_TOKEN_SERVER_ERROR'
  /** Another 4xx (invalid_client, invalid_scope…): the definition's credentials are refused. */
  | 'OAUTH2_TOKEN_REFUSED'
  /** A 2xx without a usable bearer token (not JSON, no access_token, another token_type). */
  | 'OAUTH2_TOKEN_BAD_ANSWER';

export interface ClientCredentialsRequest {
  readonly tokenUrl: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string | undefined;
  readonly audience?: string | undefined;
  readonly timeoutMs: number;
}

/** Bytes of a token answer read at most. */
const MAX_ANSWER_BYTES = 64 * 1024;

function failure(code: TokenFailureCode, message: string): Error {
  return Object.assign(new Error(`token endpoint: ${message}`), { code });
}

/** application/x-www-form-urlencoded, as RFC 6749 2.3.1 asks of the Basic credentials too. */
function formEncode(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}

/**
 * One client-credentials grant (RFC 6749 4.4) through `dispatcher` (the token URL's origin
 * pool: its address rule and the egress proxy apply). The client authenticates with HTTP Basic
 * (2.3.1), which every server must support. Rejects with an OAUTH2_TOKEN_ code, never with the
 * secret in the message.
 */
export async function fetchClientCredentialsToken(
  dispatcher: Dispatcher,
  request: ClientCredentialsRequest,
): Promise<BearerGrant> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (request.scope !== undefined) form.set('scope', request.scope);
  if (request.audience !== undefined) form.set('audience', request.audience);
  const basic = Buffer.from(`${formEncode(request.clientId)}:${formEncode(request.clientSecret)}`).toString(
    'base64',
  );
  let status: number;
  let text: string;
  try {
    const answer = await dispatcher.request({
      origin: request.tokenUrl.origin,
      path: `${request.tokenUrl.pathname}${request.tokenUrl.search}`,
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': 'hookstream-pusher/0.1',
      },
      body: form.toString(),
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    status = answer.statusCode;
    const chunks: Buffer[] = [];
    let read = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > MAX_ANSWER_BYTES) {
        answer.body.destroy();
        throw failure('OAUTH2_TOKEN_BAD_ANSWER', `an answer over ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    const { code, name } = err as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && code.startsWith(OAUTH2_TOKEN_CODE_PREFIX)) throw err;
    // The AbortSignal's deadline rejects with a DOMException named TimeoutError.
    if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
      throw failure('OAUTH2_TOKEN_TIMEOUT', `no answer within ${request.timeoutMs} ms`);
    const why = typeof code === 'string' ? code : typeof name === 'string' ? name : 'connection failed';
    throw failure('OAUTH2_TOKEN_UNREACHABLE', `${request.tokenUrl.origin}: ${why}`);
  }
  if (status === 429 || status >= 500) throw failure('OAUTH2_TOKEN_SERVER_ERROR', `answered ${status}`);
  if (status < 200 || status >= 300) {
    // RFC 6749 5.2: {"error": "invalid_client", …}; the error code says why, the rest is not logged.
    const error = /"error"\s*:\s*"([A-Za-z0-9_.-]{1,64})"/.exec(text)?.[1];
    throw failure('OAUTH2_TOKEN_REFUSED', `answered ${status}${error === undefined ? '' : ` (${error})`}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failure('OAUTH2_TOKEN_BAD_ANSWER', `answered ${status} without JSON`);
  }
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const token = fields.access_token;
  if (typeof token !== 'string' || token === '' || token.length > 16_384 || !/^[\x21-\x7e]+$/.test(token))
    throw failure('OAUTH2_TOKEN_BAD_ANSWER', 'no usable access_token');
  const type = fields.token_type;
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer'))
    throw failure('OAUTH2_TOKEN_BAD_ANSWER', `token_type ${JSON.stringify(type)}, not Bearer`);
  const expires = fields.expires_in;
  const expiresInS =
    typeof expires === 'number' && Number.isFinite(expires)
      ? expires
      : typeof expires === 'string' && /^\d{1,9}$/.test(expires)
        ? Number(expires)
        : null;
  return { accessToken: token, expiresInS };
}
