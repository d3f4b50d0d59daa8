import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { inCgroup, podCgroup } from '../src/pod-cgroup.ts';

const run = promisify(execFile);

describe('podCgroup', () => {
  it('starts a process whose Node sees the limit, as in a pod, where the machine lets it make one', async (t) => {
    const cgroup = await podCgroup(`hookstream-test-${randomUUID().slice(0, 8)}`, 768);
    // Not root, or no cgroup file system: the fleet bench then says it ran without a limit.
    if (cgroup === null) return t.skip();
    try {
      const [command, args] = inCgroup(cgroup, process.execPath, [
        '-e',
        'const v8 = require("node:v8"); console.log(JSON.stringify({ limit: process.constrainedMemory(), heap: v8.getHeapStatistics().heap_size_limit }))',
      ]);
      const { stdout } = await run(command, args);
      const seen = JSON.parse(stdout) as { limit: number; heap: number };
      expect(seen.limit).toBe(768 * 1024 * 1024);
      // Node sizes the heap from the limit: well under it, far under a big machine's default.
      expect(seen.heap).toBeLessThan(768 * 1024 * 1024);
    } finally {
      await cgroup.remove();
    }
  });
});
