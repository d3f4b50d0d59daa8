import { access, mkdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A memory cgroup a process can be started in, as a pod's memory limit puts it in one. */
export interface PodCgroup {
  /** Writing a pid here moves that process into the cgroup. */
  readonly procsFile: string;
  readonly limitMiB: number;
  remove(): Promise<void>;
}

const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/memory';

/**
 * A new memory cgroup limited to `limitMiB` (v2 `memory.max`, or v1 `memory.limit_in_bytes`), or
 * null where this machine does not let the benchmark make one (no cgroup file system, not root).
 * Node sizes its heap from the limit of the cgroup it starts in (libuv's constrained memory), so a
 * process started in it runs with the heap it would have in a pod of that limit.
 */
export async function podCgroup(name: string, limitMiB: number): Promise<PodCgroup | null> {
  const bytes = String(limitMiB * 1024 * 1024);
  for (const [root, limitFile] of [
    [V2_ROOT, 'memory.max'],
    [V1_ROOT, 'memory.limit_in_bytes'],
  ] as const) {
    const dir = join(root, name);
    try {
      await access(
        join(root, limitFile === 'memory.max' ? 'cgroup.subtree_control' : 'memory.limit_in_bytes'),
      );
      await mkdir(dir);
    } catch {
      continue;
    }
    try {
      await writeFile(join(dir, limitFile), bytes);
      return {
        procsFile: join(dir, 'cgroup.procs'),
        limitMiB,
        remove: () => rmdir(dir).catch(() => undefined),
      };
    } catch {
      await rmdir(dir).catch(() => undefined);
    }
  }
  return null;
}

/**
 * The command that starts `command args` inside the cgroup: a shell moves itself in, then
 * becomes the command (exec keeps the pid the caller watches).
 */
export function inCgroup(cgroup: PodCgroup, command: string, args: readonly string[]): [string, string[]] {
  return ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, command, ...args]];
}
