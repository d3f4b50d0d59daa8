export { Semaphore } from './semaphore.ts';
