import { trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino replaces with "[redacted]" wherever they appear in a log line: secrets, tokens,
 * signatures and payloads never reach the logs: logs carry ids, not bodies (docs/operations.md).
 */
export const REDACTED_PATHS = [
  'secret',
  '*.secret',
  'token',
  '*.token',
  'tokens',
  '*.tokens',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*.headers["webhook-signature"]',
  'signature',
  '*.signature',
  'body',
  '*.body',
  'data',
  '*.data',
] as const;

export interface LoggerOptions {
  readonly name: string;
  readonly level?: string;
  /** Defaults to stdout; tests pass a stream to read what was logged. */
  readonly destination?: DestinationStream;
}

/** A JSON logger that stamps each line with the active trace and span ids. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
      mixin() {
        const span = trace.getActiveSpan();
        if (!span) return {};
        const { traceId, spanId } = span.spanContext();
        return { trace_id: traceId, span_id: spanId };
      },
    },
    options.destination,
  );
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The `(level, message, fields)` function the packages log through (contracts' LogFn), writing to
 * a pino logger: fields first, so redaction applies to them.
 */
export function logFn(
  logger: Logger,
): (level: LogLevel, message: string, fields?: Record<string, unknown>) => void {
  return (level, message, fields) => logger[level](fields ?? {}, message);
}
