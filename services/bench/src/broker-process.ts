import { stackStatus } from '@hookstream/stack';

/**
 * The Kafka broker's pid when it is the local stack's (`hookstream stack up` from this checkout,
 * or HOOKSTREAM_STATE_DIR naming the stack's state folder); null otherwise.
 */
export async function localBrokerPid(): Promise<number | null> {
  const [kafka] = await stackStatus({ only: ['kafka'] });
  return kafka?.state === 'running' ? kafka.pid : null;
}
