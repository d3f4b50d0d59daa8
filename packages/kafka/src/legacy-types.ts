import type { KafkaAdmin } from './kafka-admin.ts';
import type { KafkaConnection } from './kafka-connection.ts';

// The names the pusher still imports. They were kafkajs's own types; they now name the facade,
// which covers what the pusher calls on them.

/** @deprecated legacy, removed once pusher/ingress/producer use KafkaConnection: use KafkaConnection. */
export type Kafka = KafkaConnection;

/** @deprecated legacy, removed once pusher/ingress/producer use KafkaConnection: use KafkaAdmin. */
export type Admin = KafkaAdmin;
