import { loadStackConfig, stackDown, stackUp } from '@hookstream/stack';

/**
 * Brings the local stack up with the same code as `hookstream stack up`. Components this run
 * started are stopped afterwards; a stack that was already running is left as it was.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // The tests ask for Redis (multi-instance rate limits) unless the environment says otherwise.
  const config = loadStackConfig({ HOOKSTREAM_REDIS: 'on', ...process.env });
  const reports = await stackUp({ config });
  const startedNow = reports.filter((r) => r.startedNow).map((r) => r.name);
  return async () => {
    if (startedNow.length > 0 && process.env.HOOKSTREAM_KEEP_STACK !== '1') {
      await stackDown({ config, only: startedNow });
    }
  };
}
