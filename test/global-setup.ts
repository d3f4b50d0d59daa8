import { stackDown, stackUp } from '@hookstream/stack';

/**
 * Brings the local stack up with the same code as `hookstream stack up`. Components this run
 * started are stopped afterwards; a stack that was already running is left as it was.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const reports = await stackUp();
  const startedNow = reports.filter((r) => r.startedNow).map((r) => r.name);
  return async () => {
    if (startedNow.length > 0 && process.env.HOOKSTREAM_KEEP_STACK !== '1') {
      await stackDown({ only: startedNow });
    }
  };
}
