import { startNoticeProducer } from '@hookstream/producer';
import { runtimeConnection } from './runtime-endpoints.ts';

/**
 * A notice producer for one command's events topic (a resumed subscriber's subscriber.enabled),
 * opened only when a notice is due: `component` names it as source and client.
 */
export function openNoticePublisher(component: 'api' | 'cli' | 'console', eventsTopic: string) {
  return startNoticeProducer({
    kafka: runtimeConnection().kafka,
    registry: runtimeConnection().registry,
    source: `/hookstream/${component}`,
    eventsTopic,
    clientId: component === 'cli' ? 'hookstream-subscribers' : `hookstream-${component}`,
  });
}
