export { cloudEventHeaders } from './cloud-event-headers.ts';
export type { DedupWindowOptions } from './dedup-window.ts';
export { DedupWindow } from './dedup-window.ts';
export type { PublishErrorCode, PublishErrorDetail } from './errors.ts';
export { PublishError } from './errors.ts';
export type { EncodeRequest } from './event-encoder.ts';
export { EventEncoder } from './event-encoder.ts';
export type {
  EventProducerOptions,
  PublishOptions,
  PublishPreparedOptions,
  PublishResult,
} from './event-producer.ts';
export { EventProducer } from './event-producer.ts';
export type { MicroBatcherOptions, Submission } from './micro-batcher.ts';
export { MicroBatcher } from './micro-batcher.ts';
export type { NoticeProducerOptions } from './notice-producer.ts';
export { noticesTopicSpec, startNoticeProducer } from './notice-producer.ts';
export type { PreparedEvent, PublishChannel } from './prepare-event.ts';
export { MAX_OCCURRED_AT_SKEW_MS, prepareEvent } from './prepare-event.ts';
export type { ProducerDedupWindowsOptions } from './producer-dedup-windows.ts';
export { ProducerDedupWindows } from './producer-dedup-windows.ts';
export type { RegistryGetOptions, RegistryResponse } from './registry-http.ts';
export { RegistryHttp } from './registry-http.ts';
export { registerSchemas } from './schema-ids.ts';
export { isTraceparent, newTraceparent } from './traceparent.ts';
