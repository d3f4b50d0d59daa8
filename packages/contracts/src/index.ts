export { EventEnvelope, EventId, EventTypeName, RESERVED_DATA_FIELDS } from './envelope.ts';
export {
  AVRO_CONTENT_TYPE,
  CE_HEADER,
  CE_SPECVERSION,
  CONTENT_TYPE_HEADER,
  TRACEPARENT_HEADER,
  TRACESTATE_HEADER,
} from './headers.ts';
export {
  PUSHER_OWNED_HEADERS,
  parseSubscriberDefinition,
  RateSettings,
  RetrySettings,
  SecretSource,
  StartPosition,
  SubscriberDefinition,
} from './subscriber.ts';
export {
  DEFAULT_EVENTS_TOPIC,
  dlqTopicName,
  retryTopicName,
  SubscriberName,
  subscriberGroupId,
} from './topics.ts';
