import { randomBytes } from 'node:crypto';

/**
 * A test run's tag: every name its files make carries it, and at the end anything on the stack
 * that carries it is a leftover (removed, and the run fails). Eight hex digits: with four, the
 * random hex in the names benchmarks leave in the catalog matched a run's tag now and then, and
 * a clean run failed on a benchmark's record (and removed it).
 */
export function newRunTag(): string {
  return randomBytes(4).toString('hex');
}
