export type { LoadedSubscriber } from './definition-file.ts';
export { loadSubscriber } from './definition-file.ts';
export type { FleetProcessSettings } from './fleet-process.ts';
export { FleetProcess } from './fleet-process.ts';
export { HealthServer } from './health-server.ts';
export type { PushConfig, PushFlags, PushMode } from './push-config.ts';
export { loadPushConfig, PushConfigError } from './push-config.ts';
export type { PusherSettings } from './pusher.ts';
export { Pusher } from './pusher.ts';
