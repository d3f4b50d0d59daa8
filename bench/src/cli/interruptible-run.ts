import type { RunControl } from '../run-control.ts';

export type RunOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly exitCode: number };

/**
 * Runs a long benchmark with progress lines on stderr (seconds since its start) and a Ctrl-C or
 * SIGTERM that aborts its waits, so its cleanup still deletes what it created: exit code 130
 * then, 1 (with `<command>: <message><hint>` on stderr) when it failed otherwise.
 */
export async function runInterruptible<T>(
  command: string,
  run: (control: Required<RunControl>) => Promise<T>,
  hint = '',
): Promise<RunOutcome<T>> {
  const started = performance.now();
  const progress = (line: string) =>
    process.stderr.write(`bench: [${Math.round((performance.now() - started) / 1000)} s] ${line}\n`);
  const interrupt = new AbortController();
  const onSignal = () => {
    progress('interrupted: cleaning up');
    interrupt.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return { ok: true, value: await run({ progress, signal: interrupt.signal }) };
  } catch (err) {
    if (interrupt.signal.aborted) return { ok: false, exitCode: 130 };
    process.stderr.write(`${command}: ${err instanceof Error ? err.message : String(err)}${hint}\n`);
    return { ok: false, exitCode: 1 };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
