export type { LoadedSubscriber } from './definition-file.ts';
export { loadSubscriber } from './definition-file.ts';
export { HealthServer } from './health-server.ts';
export type { PusherSettings } from './pusher.ts';
export { Pusher } from './pusher.ts';
