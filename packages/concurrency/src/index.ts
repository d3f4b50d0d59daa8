export type { CapShare } from './fair-share-cap.ts';
export { FairShareCap } from './fair-share-cap.ts';
export { Semaphore } from './semaphore.ts';
