/** Where the stack reports what it is doing; the CLI prints, tests may collect. */
export type Reporter = (component: string, message: string) => void;

export const consoleReporter: Reporter = (component, message) => {
  process.stderr.write(`[stack] ${component.padEnd(8)} ${message}\n`);
};

export const silentReporter: Reporter = () => undefined;

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Calls `tick` every `everyMs` until the returned stop function is called, so a long
 * download or build shows it is alive instead of going silent for minutes.
 */
export function startTicker(everyMs: number, tick: (elapsedMs: number) => void): () => void {
  const started = Date.now();
  const timer = setInterval(() => tick(Date.now() - started), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
