import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { joinStack, leaveStack, loadStackConfig } from '@hookstream/stack';
import type { TestProject } from 'vitest/node';
import { countLeftovers, describeLeftovers, removeLeftovers } from './support/leftovers.ts';
import { newRunTag } from './support/run-tag.ts';
import { endpoints } from './support/stack.ts';

/**
 * Joins the machine's stack with the same code as `hookstream stack up`, starting what is not
 * running. A stack this run starts gets scratch data and is stopped when the last user of it
 * leaves (HOOKSTREAM_KEEP_STACK=1 keeps it up, on kept data); a stack that was running is left as
 * it was. Jaeger is not waited for here: the files that read traces wait for it
 * (test/support/tracing-backend.ts) and run last (test/waiters-last-sequencer.ts).
 *
 * It gives the run a tag that every name a test makes carries (support/names.ts); at the end
 * anything still carrying it was left behind by a test, and fails the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The tests ask for Redis (multi-instance rate limits) unless the environment says otherwise.
  const config = loadStackConfig({ HOOKSTREAM_REDIS: 'on', ...process.env });
  const keep = process.env.HOOKSTREAM_KEEP_STACK === '1';
  // test/runner/main.ts gives both its phases one tag and one logs folder.
  const runTag = process.env.HOOKSTREAM_TEST_RUN || newRunTag();
  const logsDir = process.env.HOOKSTREAM_TEST_LOGS || join(config.workDir, 'test-runs', runTag, 'child-logs');
  project.provide('hookstreamRunTag', runTag);
  project.provide('hookstreamLogsDir', logsDir);
  const session = await joinStack(
    { command: 'npm test', stopWhenIdle: !keep, scratchData: !keep },
    { config },
  );
  return async () => {
    try {
      // Groups a file's hook could not delete (a killed member's session) are removed here; only
      // one that is still held after the wait counts as left behind.
      const removed = await removeLeftovers(endpoints, runTag, { waitForGroups: true });
      const left = { ...removed, groups: removed.groupsNotDeleted };
      if (countLeftovers(left) > 0)
        throw new Error(
          `tests left these on the shared stack (removed now; each file must remove what it makes):\n${describeLeftovers(left)}`,
        );
    } finally {
      if (existsSync(logsDir) && readdirSync(logsDir).length > 0)
        process.stderr.write(`[tests] logs of failed tests' child processes: ${logsDir}\n`);
      const left = await leaveStack(session.holder.id, { config });
      if (left.stopped.length === 0 && left.heldBy.length > 0)
        process.stderr.write(`[stack] left running for ${left.heldBy.length} other holder(s)\n`);
    }
  };
}
