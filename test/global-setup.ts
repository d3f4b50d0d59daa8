import { joinStack, leaveStack, loadStackConfig } from '@hookstream/stack';

/**
 * Joins the machine's stack with the same code as `hookstream stack up`, starting what is not
 * running. A stack this run starts gets scratch data and is stopped when the last user of it
 * leaves (HOOKSTREAM_KEEP_STACK=1 keeps it up, on kept data); a stack that was running is left as
 * it was. Jaeger is not waited for here: the files that read traces wait for it
 * (test/support/tracing-backend.ts) and run last (test/jaeger-last-sequencer.ts).
 */
export default async function setup(): Promise<() => Promise<void>> {
  // The tests ask for Redis (multi-instance rate limits) unless the environment says otherwise.
  const config = loadStackConfig({ HOOKSTREAM_REDIS: 'on', ...process.env });
  const keep = process.env.HOOKSTREAM_KEEP_STACK === '1';
  const session = await joinStack(
    { command: 'npm test', stopWhenIdle: !keep, scratchData: !keep },
    { config },
  );
  return async () => {
    const left = await leaveStack(session.holder.id, { config });
    if (left.stopped.length === 0 && left.heldBy.length > 0)
      process.stderr.write(`[stack] left running for ${left.heldBy.length} other holder(s)\n`);
  };
}
