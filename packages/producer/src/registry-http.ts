import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { RegistrySettings } from '@hookstream/contracts';

// Not an ESM import of node:http: that evaluates its lazy WebSocket exports, which load Node's
// bundled undici (~8 MB RSS) into every process using the registry, none of which needs it.
const http = process.getBuiltinModule('node:http');

/** One registry answer, its body read whole (bounded). */
export interface RegistryResponse {
  readonly status: number;
  readonly body: string;
  /** The body was larger than the caller's limit and was not read. */
  readonly oversized: boolean;
}

export interface RegistryGetOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/**
 * HTTP to the schema registry with its credentials and CA, made once from the settings: the
 * producer's registry client, the ingress's readiness check and the pusher's schema lookups all
 * use this one, so basic auth and a private CA reach each of them. Credentials go in the
 * Authorization header, never in a URL that could be logged.
 */
export class RegistryHttp {
  readonly url: string;
  /** For the Confluent client (mappersmith), which takes an agent and `auth` of its own. */
  readonly agent: HttpAgent | HttpsAgent;
  readonly auth: RegistrySettings['auth'];
  readonly #authorization: string | undefined;
  readonly #https: boolean;

  constructor(settings: RegistrySettings) {
    this.url = settings.url.replace(/\/+$/, '');
    this.auth = settings.auth;
    this.#https = this.url.startsWith('https:');
    this.agent = this.#https
      ? new HttpsAgent({ keepAlive: true, ...(settings.ca === undefined ? {} : { ca: settings.ca }) })
      : new http.Agent({ keepAlive: true });
    this.#authorization =
      settings.auth === null
        ? undefined
        : `Basic ${Buffer.from(`${settings.auth.username}:${settings.auth.password}`).toString('base64')}`;
  }

  /** GET `path` (relative to the registry URL); rejects on a network failure or the timeout. */
  get(path: string, options: RegistryGetOptions): Promise<RegistryResponse> {
    const request = this.#https ? httpsRequest : http.request;
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.url}${path}`,
        {
          method: 'GET',
          agent: this.agent,
          timeout: options.timeoutMs,
          headers: {
            accept: 'application/vnd.schemaregistry.v1+json, application/json',
            ...(this.#authorization === undefined ? {} : { authorization: this.#authorization }),
          },
        },
        (res) => readBounded(res, options.maxBytes).then(resolve, reject),
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function readBounded(res: IncomingMessage, maxBytes: number): Promise<RegistryResponse> {
  const status = res.statusCode ?? 0;
  if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
    res.destroy();
    return Promise.resolve({ status, body: '', oversized: true });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        resolve({ status, body: '', oversized: true });
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8'), oversized: false }));
    res.on('error', reject);
  });
}
