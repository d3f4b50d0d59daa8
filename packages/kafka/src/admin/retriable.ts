import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs an admin call again while Kafka answers with an error it marks retriable. On a fresh
 * broker the first group request lands while __consumer_offsets is still being created and is
 * answered NOT_COORDINATOR, which kafkajs's admin passes straight up.
 */
export async function retryRetriable<T>(call: () => Promise<T>, attempts = 20, delayMs = 250): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const retriable =
        typeof err === 'object' && err !== null && (err as { retriable?: unknown }).retriable === true;
      if (!retriable || attempt >= attempts) throw err;
      await sleep(delayMs);
    }
  }
}
