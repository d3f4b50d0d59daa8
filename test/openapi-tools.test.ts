import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleReporter, ensureOpenApiTools, loadStackConfig, type OpenApiTools } from '@hookstream/stack';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from './support/names.ts';

// The tools the management API's tests hold it to (openapi-spec-validator and Schemathesis,
// pinned, from PyPI), checked on their own against a tiny real HTTP server: each must pass what
// conforms and fail what does not, or a passing API test would prove nothing.

const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'echo', version: '1' },
  paths: {
    '/v1/echo/{n}': {
      get: {
        operationId: 'echo',
        parameters: [
          { name: 'n', in: 'path', required: true, schema: { type: 'integer', minimum: 0, maximum: 100 } },
        ],
        responses: {
          '200': {
            description: 'the number',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { n: { type: 'integer' } },
                  required: ['n'],
                  additionalProperties: false,
                },
              },
            },
          },
          '400': {
            description: 'not a number of the range',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
};

/** Serves DOCUMENT and its one operation; `brokenAbove` answers 500 above that number. */
function echoServer(brokenAbove: number | null): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return json(405, { error: 'method' }, { allow: 'GET' });
    if (req.url === '/openapi.json') return json(200, DOCUMENT);
    const n = Number(/^\/v1\/echo\/([^/?]+)$/.exec(req.url ?? '')?.[1]);
    if (!Number.isInteger(n) || n < 0 || n > 100) return json(400, { error: 'n' });
    if (brokenAbove !== null && n > brokenAbove) {
      res.writeHead(500);
      res.end('boom');
      return;
    }
    json(200, { n });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}` });
    }),
  );
}

let tools: OpenApiTools;
const servers: Server[] = [];

beforeAll(async () => {
  // First run: a venv with the pinned packages (about 20 s); cached in ~/.cache/hookstream after.
  tools = await ensureOpenApiTools(loadStackConfig(), consoleReporter);
}, 5 * 60_000);

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('openapi-spec-validator, as the API test runs it', () => {
  it('passes a valid OpenAPI 3.1 document and fails one without info.version', async () => {
    const dir = tmpdir();
    const good = join(dir, `${uniqueName('openapi-good')}.json`);
    const bad = join(dir, `${uniqueName('openapi-bad')}.json`);
    await writeFile(good, JSON.stringify(DOCUMENT));
    await writeFile(bad, JSON.stringify({ ...DOCUMENT, info: { title: 'echo' } }));
    expect((await tools.validate(good)).ok).toBe(true);
    const refused = await tools.validate(bad);
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain('version');
  }, 60_000);
});

describe('Schemathesis, as the API test runs it', () => {
  it.each([
    ['passes a server that keeps to the document', null, true],
    ['fails a server that answers 500 to some numbers', 50, false],
  ] as const)(
    '%s',
    async (_, brokenAbove, ok) => {
      const { server, url } = await echoServer(brokenAbove);
      servers.push(server);
      const run = await tools.fuzz({
        schemaUrl: `${url}/openapi.json`,
        baseUrl: url,
        headers: {},
        maxExamples: 20,
        maxTimeSeconds: 6,
      });
      expect(run.ok, run.output).toBe(ok);
      if (!ok) expect(run.output).toContain('Server error');
    },
    60_000,
  );
});
