import {
  ensureChromium,
  ensureHelm,
  ensureKubernetesValidator,
  ensureOpenApiTools,
  type Reporter,
  type StackConfig,
  waitForComponent,
} from '@hookstream/stack';

/** What a toolchain's background preparation came to. */
export interface ToolOutcome {
  readonly tool: string;
  readonly seconds: number;
  /** When it was ready (or failed), in ms since the epoch. */
  readonly endedAt: number;
  readonly error?: string;
}

/**
 * Starts every toolchain a test file needs (and waits for Jaeger) (helm, the Kubernetes schemas, Chromium, the OpenAPI
 * tools) at once, in the background, as the stack starts Jaeger. Each holds its tool's lock in the
 * cache while it builds; a file that needs one calls the same ensure function and waits for it
 * there, so only those files wait. Failures are not thrown here: the file that needs the tool
 * meets the same error with its own test's name on it.
 */
export function prepareToolsInBackground(config: StackConfig, report: Reporter): Promise<ToolOutcome[]> {
  const tools: [string, () => Promise<unknown>][] = [
    ['helm', () => ensureHelm(config, report)],
    ['k8s-schemas', () => ensureKubernetesValidator(config, report)],
    ['chromium', () => ensureChromium(config, report)],
    ['openapi-tools', () => ensureOpenApiTools(config, report)],
    // Not built here (the stack builds it), but waited for, so its time is known.
    ['jaeger', () => waitForComponent('jaeger', { config, report })],
  ];
  return Promise.all(
    tools.map(async ([tool, ensure]) => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        await ensure();
        return { tool, seconds: seconds(), endedAt: Date.now() };
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        return { tool, seconds: seconds(), endedAt: Date.now(), error };
      }
    }),
  );
}
