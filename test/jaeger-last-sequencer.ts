import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * vitest's order, except that the files that read traces run last: on a fresh machine Jaeger
 * is still building in the background when the suite starts, and every other file runs in
 * that time. A file reads traces when it imports test/support/tracing-backend.ts, which waits for
 * the backend.
 */
export default class JaegerLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const readsTraces = (spec: TestSpecification) =>
      readFileSync(spec.moduleId, 'utf8').includes('/support/tracing-backend.ts');
    return [...sorted.filter((s) => !readsTraces(s)), ...sorted.filter(readsTraces)];
  }
}
