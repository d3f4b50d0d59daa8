import { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll } from 'vitest';
import type { EventFactory } from './events.ts';
import type { KafkaFixture } from './pushers.ts';
import type { ReceiverPool } from './receivers.ts';

/**
 * The usual lifecycle of a pusher test file, registered in its describe block: the broker
 * connection and the registered schema open before the first test; the endpoints (one receiver
 * listening from the start, or a pool whose receivers the tests start) close after the last.
 */
export function openForSuite(
  fx: KafkaFixture,
  factory: EventFactory,
  endpoints: SampleReceiver | ReceiverPool,
): void {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    if (endpoints instanceof SampleReceiver) await endpoints.listen();
  });
  afterAll(async () => {
    await fx.close();
    if (endpoints instanceof SampleReceiver) await endpoints.close();
    else await endpoints.closeAll();
  });
}
