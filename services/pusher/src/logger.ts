import type { LogFn } from '@hookstream/kafka';

/**
 * Structured JSON lines on stderr, one object per line, with fixed fields (service, subscriber)
 * on every line. Callers log event ids and outcomes, never secrets or bodies.
 */
export function jsonLogger(
  fixed: Readonly<Record<string, unknown>>,
  minLevel: 'info' | 'warn' | 'error' = 'info',
): LogFn {
  const rank = { info: 0, warn: 1, error: 2 } as const;
  return (level, message, fields) => {
    if (rank[level] < rank[minLevel]) return;
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level, message, ...fixed, ...fields })}\n`,
    );
  };
}
