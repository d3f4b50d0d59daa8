import { fileURLToPath } from 'node:url';

/** The product's own command (the `hookstream` package's script), which some benchmarks run. */
export function hookstreamBin(): string {
  return fileURLToPath(new URL('../bin/hookstream.js', import.meta.resolve('hookstream')));
}
