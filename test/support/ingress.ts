import { loadIngressConfig, type RunningIngress, startIngress } from '@hookstream/ingress';
import { endpoints } from './stack.ts';

/** Tokens the test ingresses accept: one for every type, one limited to key.revoked. */
export const TOKENS = {
  all: 'test-token-all-0123456789',
  keysOnly: 'test-token-keys-0123456789',
} as const;

/** Starts a real ingress in this process on a free port, writing to its own topic. */
export function startTestIngress(topic: string, env: Record<string, string> = {}): Promise<RunningIngress> {
  const config = loadIngressConfig(
    {
      INGRESS_TOKENS: `${TOKENS.all},${TOKENS.keysOnly}=key.revoked`,
      INGRESS_TOPIC: topic,
      INGRESS_TOPIC_PARTITIONS: '3',
      INGRESS_LOG_LEVEL: 'silent',
      KAFKA_BROKERS: endpoints.brokers.join(','),
      REGISTRY_URL: endpoints.registry,
      ...env,
    },
    { port: 0 },
  );
  return startIngress(config);
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

export interface PostOptions {
  /** null: no Authorization header. */
  readonly token?: string | null;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

/** POSTs to the ingress; body is sent as given when a string, as JSON otherwise. */
export async function post(url: string, body: unknown, options: PostOptions = {}): Promise<Answer> {
  const { token = TOKENS.all, contentType = 'application/json', headers = {} } = options;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      'content-type': contentType,
      ...headers,
    },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: keep the text for the assertion message.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
