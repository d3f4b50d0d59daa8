import type { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll } from 'vitest';
import type { EventFactory } from './events.ts';
import type { KafkaFixture } from './pushers.ts';

/**
 * The usual lifecycle of a pusher test file, registered in its describe block: the broker
 * connection, the registered schema and the receiver open before the first test and close after
 * the last.
 */
export function openForSuite(fx: KafkaFixture, factory: EventFactory, receiver: SampleReceiver): void {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    await receiver.listen();
  });
  afterAll(async () => {
    await fx.close();
    await receiver.close();
  });
}
