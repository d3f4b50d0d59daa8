import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

interface DryRun {
  tasks: { taskId: string; inputs: Record<string, string> }[];
}

// turbo caches `test` by its inputs: a schema change must rerun the tests that read schemas/.
describe('turbo.json', () => {
  it('makes schemas/ an input of every package test task', async () => {
    const { stdout } = await run(
      'npx',
      [
        'turbo',
        'run',
        'test',
        '--filter=@hookstream/contracts',
        '--filter=@hookstream/producer',
        '--dry=json',
      ],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    const dry = JSON.parse(stdout) as DryRun;
    const tests = dry.tasks.filter((t) => t.taskId.endsWith('#test'));
    expect(tests.map((t) => t.taskId).sort()).toEqual([
      '@hookstream/contracts#test',
      '@hookstream/producer#test',
    ]);
    for (const task of tests) {
      expect(Object.keys(task.inputs), task.taskId).toContain('../../schemas/shipment.updated.avsc');
    }
  });
});
