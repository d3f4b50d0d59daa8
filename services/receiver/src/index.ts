export type { Arrival } from './arrival-log.ts';
export { maxInWindow, perSecondHistogram } from './arrival-log.ts';
export { ReceiverBehaviour } from './behaviour.ts';
export type { ReceiverOptions, ReceiverStats } from './sample-receiver.ts';
export { SampleReceiver } from './sample-receiver.ts';
