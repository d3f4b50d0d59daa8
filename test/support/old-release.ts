import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

/** An earlier commit's sources, runnable with this checkout's installed packages. */
export interface OldRelease {
  readonly commit: string;
  /** Its `hookstream` command (run with this process's Node, as `spawnCli` does). */
  readonly bin: string;
  remove(): Promise<void>;
}

/**
 * Unpacks `commit` from this clone's history into a temporary directory and gives it this
 * checkout's node_modules: third-party packages are linked as they are, the workspace's own
 * (`@hookstream/*`, the `hookstream` command) point into the unpacked tree. Node runs the
 * TypeScript sources directly, so nothing is built. The commit's dependencies must be installed
 * here: a package only older releases use is a devDependency of the root (`bottleneck`, which the
 * releases before the shared window carried clustered limits with).
 */
export async function unpackRelease(commit: string): Promise<OldRelease> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-release-'));
  try {
    await run('sh', ['-c', `git archive --format=tar "$1" | tar -x -C "$2"`, 'unpack', commit, dir], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(
      `cannot unpack release ${commit} from this clone's history (a shallow clone lacks it): ${
        err instanceof Error ? err.message : String(err)
      }`,
    );
  }
  await linkModules(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return {
    commit,
    bin: join(dir, 'services/cli/bin/hookstream.js'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * The workspace's own packages are relative links (`../../packages/x`): copied as they are, they
 * point into the unpacked tree. Every other entry is linked to this checkout's.
 */
async function linkModules(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await readdir(from)) {
    const source = join(from, name);
    if ((await lstat(source)).isSymbolicLink()) await symlink(await readlink(source), join(to, name));
    else if (name === '@hookstream') await linkModules(source, join(to, name));
    else await symlink(source, join(to, name));
  }
}
