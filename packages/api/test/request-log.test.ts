import { type ManagementPorts, ManagementService } from '@hookstream/management';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiServer, ApiTokens } from '../src/index.ts';

const ACME_TOKEN = 'acme-token-0123456789abc';
const tokens = ApiTokens.parse([`${ACME_TOKEN}@acme`]);

let server: ApiServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
});

describe('the request log', () => {
  it('names the caller as tokenId, a field the logger does not redact, and never the token', async () => {
    const lines: Record<string, unknown>[] = [];
    server = new ApiServer({
      // Only the OpenAPI document is asked for: it reads no port.
      service: new ManagementService({} as ManagementPorts),
      tokens,
      host: '127.0.0.1',
      port: 0,
      log: (_level, message, fields) => {
        if (message === 'request') lines.push(fields);
      },
    });
    const base = await server.start();
    const res = await fetch(`${base}/v1/openapi.json`, {
      headers: { authorization: `Bearer ${ACME_TOKEN}` },
    });
    await res.arrayBuffer();
    expect(lines).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/v1/openapi.json',
        status: 200,
        tokenId: tokens.authorize(`Bearer ${ACME_TOKEN}`)?.id,
      }),
    ]);
    // `token` is a field every hookstream logger redacts (REDACTED_PATHS): it would say nothing.
    expect(lines[0]).not.toHaveProperty('token');
    expect(JSON.stringify(lines)).not.toContain(ACME_TOKEN);
  });
});
