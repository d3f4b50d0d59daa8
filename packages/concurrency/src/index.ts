export type { CapShare } from './fair-share-cap.ts';
export { FairShareCap } from './fair-share-cap.ts';
export { Fifo } from './fifo.ts';
export { forEachLimited } from './for-each-limited.ts';
export { Semaphore } from './semaphore.ts';
