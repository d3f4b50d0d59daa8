import { consoleReporter, loadStackConfig, waitForComponent } from '@hookstream/stack';

/** How long a file that reads traces waits for Jaeger: its first build on a fresh machine included. */
export const TRACING_BACKEND_WAIT_MS = loadStackConfig().buildTimeoutMs + 60_000;

let ready: Promise<unknown> | undefined;

/**
 * Resolves once the stack's Jaeger answers queries. The suite does not wait for Jaeger at the
 * start (test/global-setup.ts); a file that reads traces calls this in its beforeAll, with
 * TRACING_BACKEND_WAIT_MS as the hook's timeout, and runs last for importing this module
 * (test/waiters-last-sequencer.ts). Fails at once if Jaeger is not running or its build failed.
 */
export function tracingBackend(): Promise<unknown> {
  const started = Date.now();
  ready ??= waitForComponent('jaeger', { report: consoleReporter }).then((jaeger) => {
    // Each file asks again (vitest isolates files); only a real wait is worth a line.
    const waited = Math.round((Date.now() - started) / 1000);
    if (waited > 0) consoleReporter('jaeger', `answers (waited ${waited} s)`);
    return jaeger;
  });
  return ready;
}
