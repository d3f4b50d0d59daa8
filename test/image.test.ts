import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

// What the Docker image would hold, without a Docker engine: the Dockerfile's COPY lines and its
// `npm ci` replayed into an empty folder (from npm's cache, which `npm install` filled).

/** The `COPY <from…> <to>` lines of the Dockerfile, as sources and a destination. */
function copies(dockerfile: string): { from: string[]; to: string }[] {
  return dockerfile
    .split('\n')
    .filter((line) => /^COPY\s/.test(line))
    .map((line) => {
      const parts = line.trim().split(/\s+/).slice(1);
      return { from: parts.slice(0, -1), to: parts.at(-1) ?? '.' };
    });
}

/** Every package name under node_modules (scoped ones as @scope/name). */
async function installed(modules: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(modules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@'))
      names.push(...(await readdir(join(modules, entry))).map((n) => `${entry}/${n}`));
    else names.push(entry);
  }
  return names.sort();
}

describe('the Docker image', () => {
  let dir = '';
  let packages: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookstream-image-'));
    const dockerfile = await readFile(join(root, 'Dockerfile'), 'utf8');
    for (const { from, to } of copies(dockerfile)) {
      for (const source of from) {
        const target = to.endsWith('/')
          ? join(dir, to, source)
          : from.length > 1
            ? join(dir, source)
            : join(dir, to);
        await cp(join(root, source), target, {
          recursive: true,
          filter: (path) => !path.split('/').includes('node_modules'),
        });
      }
    }
    const ci = /RUN (npm ci [^&\n]*)/.exec(dockerfile)?.[1];
    expect(ci, 'the Dockerfile installs with npm ci').toBeDefined();
    const args = (ci ?? '').split(/\s+/).slice(1);
    await run('npm', [...args, '--prefer-offline', '--loglevel=error'], { cwd: dir, timeout: 120_000 });
    packages = await installed(join(dir, 'node_modules'));
  }, 180_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('carries no benchmark code and none of its dependencies', () => {
    expect(existsSync(join(dir, 'bench'))).toBe(false);
    expect(packages).not.toContain('@hookstream/bench');
    // The report's chart renderer and its fonts are the bench's alone.
    expect(packages.filter((p) => p.startsWith('@resvg/') || p === 'dejavu-fonts-ttf')).toEqual([]);
    // No dev tooling either.
    for (const dev of ['vitest', 'turbo', '@biomejs/biome', 'node', 'typescript', 'playwright-core'])
      expect(packages).not.toContain(dev);
  });

  it('carries what the services run on', () => {
    for (const needed of [
      'hookstream',
      '@hookstream/ingress',
      '@hookstream/pusher',
      'kafkajs',
      'undici',
      'pino',
    ])
      expect(packages).toContain(needed);
  });

  it('answers `hookstream bench` by saying the benchmarks are not installed', async () => {
    const bench = await run(
      process.execPath,
      [join(dir, 'services/cli/bin/hookstream.js'), 'bench', 'push'],
      {
        cwd: dir,
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(bench.code).toBe(2);
    expect(bench.stderr).toContain('the benchmarks are not installed here');
  });
});
