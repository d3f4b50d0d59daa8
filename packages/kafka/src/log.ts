/** How the package's long-running parts log; the caller binds it to its own logger. */
export type LogFn = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;
