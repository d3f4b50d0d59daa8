import { HookstreamError } from '@hookstream/contracts';

// Every error this package throws on purpose: each carries a code, and whether retrying can help.

export type KafkaAccessErrorCode = 'KAFKA_AUTH_FAILED' | 'KAFKA_TLS_FAILED' | 'KAFKA_NOT_AUTHORIZED';

/**
 * Kafka refused who we are or what we asked: a wrong password, a certificate it does not trust,
 * a missing ACL. Retrying cannot help until a setting or an ACL changes, so the message names
 * the setting to look at.
 */
export class KafkaAccessError extends HookstreamError<KafkaAccessErrorCode> {
  constructor(code: KafkaAccessErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, false, options);
  }
}

export type KafkaReadErrorCode = 'NO_SUCH_TOPIC' | 'READ_TIMEOUT' | 'KAFKA_UNAVAILABLE';

/**
 * A read that did not finish. NO_SUCH_TOPIC: nothing to read (not retriable until someone
 * creates it). READ_TIMEOUT / KAFKA_UNAVAILABLE: the broker was slow or away; reading again helps.
 */
export class KafkaReadError extends HookstreamError<KafkaReadErrorCode> {
  constructor(code: KafkaReadErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, code !== 'NO_SUCH_TOPIC', options);
  }
}

export type KafkaSendErrorCode = 'KAFKA_UNAVAILABLE' | 'KAFKA_REJECTED' | 'KAFKA_NOT_AUTHORIZED';

/**
 * A send that Kafka did not acknowledge. KAFKA_UNAVAILABLE: no broker answered in time, or it
 * answered with a retriable error: the records may or may not be stored, so sending again with
 * the same event ids is the fix (subscribers deduplicate). KAFKA_REJECTED: the broker refused
 * the records for good (too large, no such topic). KAFKA_NOT_AUTHORIZED: the principal lacks the
 * topic's WRITE ACL, or its login or certificate was refused; nothing is stored until that changes.
 */
export class KafkaSendError extends HookstreamError<KafkaSendErrorCode> {
  constructor(code: KafkaSendErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, code === 'KAFKA_UNAVAILABLE', options);
  }
}

/**
 * A transactional writer was replaced by a newer one of the same transactional id (or the broker
 * timed out its transaction): nothing of its open transaction becomes visible, and it can write
 * no more, so retrying cannot help.
 */
export class KafkaFencedError extends HookstreamError<'KAFKA_FENCED'> {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('KAFKA_FENCED', message, false, options);
  }
}

export type KafkajsPatchErrorCode = 'KAFKAJS_VERSION_UNSUPPORTED' | 'KAFKAJS_PATCH_LOST';

/**
 * hookstream's replacements of kafkajs internals could not be put in place.
 * KAFKAJS_VERSION_UNSUPPORTED: the installed kafkajs is not the release they were written for,
 * and one of them is needed for correctness. KAFKAJS_PATCH_LOST: kafkajs had already loaded the
 * module a replacement swaps out (something made a kafkajs client before @hookstream/kafka was
 * imported). Neither goes away by retrying: the install or the import order has to change.
 */
export class KafkajsPatchError extends HookstreamError<KafkajsPatchErrorCode> {
  constructor(code: KafkajsPatchErrorCode, message: string) {
    super(code, message, false);
  }
}

/** kafkajs's protocol error for a topic the broker does not know (never created, or deleted). */
export function isUnknownTopic(err: unknown): boolean {
  return (err as { type?: unknown } | null)?.type === 'UNKNOWN_TOPIC_OR_PARTITION';
}
