import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

/** Every workspace package's runtime dependencies, by name. */
function workspaceDependencies(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const dir of ['packages', 'services']) {
    for (const entry of readdirSync(join(root, dir))) {
      let manifest: { name: string; dependencies?: Record<string, string> };
      try {
        manifest = JSON.parse(readFileSync(join(root, dir, entry, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      byName.set(manifest.name, Object.keys(manifest.dependencies ?? {}));
    }
  }
  return byName;
}

describe('the typed client is light', () => {
  it('needs no server, no management layer and no Kafka client at run time', () => {
    const deps = workspaceDependencies();
    const closure = new Set<string>();
    const visit = (name: string) => {
      for (const d of deps.get(name) ?? [])
        if (!closure.has(d)) {
          closure.add(d);
          visit(d);
        }
    };
    visit('@hookstream/api-client');
    expect(closure.has('@hookstream/api-schemas')).toBe(true);
    for (const heavy of [
      '@hookstream/api',
      '@hookstream/management',
      '@hookstream/kafka',
      'kafkajs',
      'undici',
    ])
      expect(closure.has(heavy), heavy).toBe(false);
  });
});
