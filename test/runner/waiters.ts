import { readFileSync } from 'node:fs';

/**
 * What a test file may wait for that the run builds or starts in the background: Jaeger (its
 * first build takes minutes), helm, the Kubernetes schemas, Chromium and the OpenAPI tools.
 */
const WAITS = [
  '/support/tracing-backend.ts',
  'ensureHelm',
  'ensureChromium',
  'ensureKubernetesValidator',
  'ensureOpenApiTools',
];

/** Whether the test file at `path` waits for something built or started in the background. */
export function waitsForBackground(path: string): boolean {
  const source = readFileSync(path, 'utf8');
  return WAITS.some((w) => source.includes(w));
}
