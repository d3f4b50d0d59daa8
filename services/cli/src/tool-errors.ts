import { HookstreamError } from '@hookstream/contracts';

/**
 * Reports a command's failure and returns the exit code, the one place that maps errors to
 * messages: 2 for a bad option (named in the message), 1 for anything else, with the error's
 * code and whether running again could help.
 */
export function reportToolError(command: string, err: unknown): number {
  if (err instanceof HookstreamError && err.code === 'BAD_OPTION') {
    process.stderr.write(`hookstream ${command}: ${err.message}\n`);
    return 2;
  }
  const known = err instanceof HookstreamError;
  const code = known ? err.code : (err as { code?: unknown }).code;
  // kafkajs errors say `retriable`; ours say canRetry.
  const retry = known ? err.canRetry : (err as { retriable?: unknown }).retriable;
  const label = typeof code === 'string' ? `${code}: ` : '';
  const hint = retry === true ? ' (transient: running it again may succeed)' : '';
  process.stderr.write(
    `hookstream ${command}: ${label}${err instanceof Error ? err.message : String(err)}${hint}\n`,
  );
  return 1;
}

/** `90s`, `12m`, `5h`, `3d`: how long ago, for people. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}
