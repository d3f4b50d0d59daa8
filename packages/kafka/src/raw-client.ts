import type { Kafka } from 'kafkajs';
import type { KafkaConnection } from './kafka-connection.ts';

// The kafkajs client behind each connection. A module-private WeakMap rather than a field, so
// the client never appears on KafkaConnection's type, and only code in this package (which can
// import this module; index.ts does not export it) reaches it.
const clients = new WeakMap<KafkaConnection, Kafka>();

export function bindKafkaClient(connection: KafkaConnection, client: Kafka): void {
  clients.set(connection, client);
}

/** The kafkajs client of a connection made by createKafka. */
export function kafkaOf(connection: KafkaConnection): Kafka {
  const client = clients.get(connection);
  if (client === undefined) throw new TypeError('not a KafkaConnection made by createKafka');
  return client;
}
