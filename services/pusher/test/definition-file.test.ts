import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSubscriber } from '../src/definition-file.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;

async function file(name: string, content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-def-'));
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe('loadSubscriber', () => {
  it('reads the secret from the environment variable the definition names', async () => {
    const path = await file(
      'a.json',
      JSON.stringify({ name: 'a', url: 'https://x.example/', secret: { env: 'HOOKSTREAM_SECRET_A' } }),
    );
    const loaded = await loadSubscriber(path, { HOOKSTREAM_SECRET_A: secret });
    expect(loaded.signingKey?.length).toBe(24);
    expect(loaded.definition.name).toBe('a');
  });

  it('reads the secret from a file relative to the definition', async () => {
    const path = await file(
      'b.json',
      JSON.stringify({ name: 'b', url: 'https://x.example/', secret: { file: 'b.secret' } }),
    );
    await writeFile(join(path, '..', 'b.secret'), `${secret}\n`);
    expect((await loadSubscriber(path, {})).signingKey?.length).toBe(24);
  });

  it('fails naming the variable when it is not set, and the field when the definition is wrong', async () => {
    const missing = await file(
      'c.json',
      JSON.stringify({ name: 'c', url: 'https://x.example/', secret: { env: 'HOOKSTREAM_SECRET_NOPE' } }),
    );
    await expect(loadSubscriber(missing, {})).rejects.toMatchObject({
      code: 'NO_SECRET',
      message: expect.stringContaining('HOOKSTREAM_SECRET_NOPE'),
    });
    const wrong = await file(
      'd.json',
      JSON.stringify({ name: 'd', url: 'https://x.example/', concurrency: 0 }),
    );
    await expect(loadSubscriber(wrong, {})).rejects.toMatchObject({
      code: 'BAD_DEFINITION',
      canRetry: false,
      message: expect.stringContaining('concurrency:'),
    });
    const notJson = await file('e.json', '{ name: ');
    await expect(loadSubscriber(notJson, {})).rejects.toMatchObject({ code: 'BAD_DEFINITION' });
  });

  it('refuses a variable without the prefix, and a managed header (its value lives in the catalog)', async () => {
    const leak = await file(
      'g.json',
      JSON.stringify({
        name: 'g',
        url: 'https://x.example/',
        headers: { 'X-Leak': { env: 'HOOKSTREAM_SECRETS_KEY' } },
      }),
    );
    await expect(loadSubscriber(leak, {})).rejects.toMatchObject({
      code: 'BAD_DEFINITION',
      message: expect.stringContaining(
        'headers.X-Leak.env: may name only a variable starting with HOOKSTREAM_HEADER_',
      ),
    });
    const managed = await file(
      'h.json',
      JSON.stringify({ name: 'h', url: 'https://x.example/', headers: { Authorization: { managed: true } } }),
    );
    await expect(loadSubscriber(managed, {})).rejects.toMatchObject({
      code: 'BAD_DEFINITION',
      message: expect.stringContaining('headers.Authorization'),
    });
  });

  it('refuses a secret that is not a Standard Webhooks key', async () => {
    const path = await file(
      'f.json',
      JSON.stringify({ name: 'f', url: 'https://x.example/', secret: { env: 'HOOKSTREAM_SECRET_S' } }),
    );
    await expect(loadSubscriber(path, { HOOKSTREAM_SECRET_S: 'hunter2' })).rejects.toMatchObject({
      code: 'NO_SECRET',
    });
  });
});
