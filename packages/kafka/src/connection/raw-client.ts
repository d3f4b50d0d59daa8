import type { Kafka } from 'kafkajs';
import type { AccessContext } from './access-refusal.ts';
import type { KafkaConnection } from './kafka-connection.ts';

// The kafkajs client behind each connection, and the TLS/SASL settings it was made with (to
// explain a refusal). Module-private WeakMaps rather than fields, so neither the client nor a
// password appears on KafkaConnection's type or in a logged object, and only code in this
// package (which can import this module; index.ts does not export it) reaches them.
const clients = new WeakMap<KafkaConnection, Kafka>();
const access = new WeakMap<KafkaConnection, AccessContext>();

const tlsChecks = new WeakMap<KafkaConnection, () => Promise<void>>();

export function bindKafkaClient(
  connection: KafkaConnection,
  client: Kafka,
  context: AccessContext,
  tlsCheck?: () => Promise<void>,
): void {
  clients.set(connection, client);
  access.set(connection, context);
  if (tlsCheck !== undefined) tlsChecks.set(connection, tlsCheck);
}

/** Rejects with a KafkaAccessError when the brokers refuse the connection's TLS settings (tls-preflight.ts). */
export function checkTlsOf(connection: KafkaConnection): Promise<void> {
  return tlsChecks.get(connection)?.() ?? Promise.resolve();
}

/** The kafkajs client of a connection made by createKafka. */
export function kafkaOf(connection: KafkaConnection): Kafka {
  const client = clients.get(connection);
  if (client === undefined) throw new TypeError('not a KafkaConnection made by createKafka');
  return client;
}

/** What explainKafkaError needs to name the right setting, plus the action being attempted. */
export function accessOf(connection: KafkaConnection, action?: string): AccessContext {
  const context = access.get(connection) ?? {};
  return action === undefined ? context : { ...context, action };
}
