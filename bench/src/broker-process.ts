import { stackStatus } from '@hookstream/stack';

/**
 * The Kafka broker's pid when it is the local stack's (the machine's stack, or the one in
 * HOOKSTREAM_STATE_DIR); null otherwise.
 */
export async function localBrokerPid(): Promise<number | null> {
  const [kafka] = (await stackStatus({ only: ['kafka'] })).components;
  return kafka?.state === 'running' ? kafka.pid : null;
}
