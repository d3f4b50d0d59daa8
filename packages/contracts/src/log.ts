/**
 * How the packages' long-running parts log, as `(level, message, fields)`; the process binds it to
 * its own logger (telemetry's `logFn` writes to pino).
 */
export type LogFn = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;
