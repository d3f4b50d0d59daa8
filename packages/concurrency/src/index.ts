export type { CapShare } from './fair-share-cap.ts';
export { FairShareCap } from './fair-share-cap.ts';
export { forEachLimited } from './for-each-limited.ts';
export { Semaphore } from './semaphore.ts';
