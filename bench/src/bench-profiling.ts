import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * With HOOKSTREAM_BENCH_PROFILE_DIR set, a V8 CPU profile of one measured window of the
 * benchmark's own process (a drain, not the set-up around it), written there as
 * `<label>-<time>.cpuprofile`; without it, nothing. A whole-process `--cpu-prof` would mix the
 * backlog's production and the baselines into the drain's figures.
 */
export async function startWindowProfile(label: string): Promise<() => Promise<void>> {
  const dir = process.env.HOOKSTREAM_BENCH_PROFILE_DIR;
  if (dir === undefined || dir === '') return async () => undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${label}-${new Date().toISOString().replace(/[:.]/g, '')}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
  };
}

/**
 * With HOOKSTREAM_BENCH_PROFILE_DIR set, the flags that make a benchmark's child process (the
 * ingress, the pull API) write a V8 CPU profile there when it exits; without it, none.
 */
export function childProfileFlags(): string[] {
  const dir = process.env.HOOKSTREAM_BENCH_PROFILE_DIR;
  return dir === undefined || dir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}
