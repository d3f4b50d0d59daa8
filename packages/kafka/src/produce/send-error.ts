import { type AccessContext, explainKafkaError, principal } from '../connection/access-refusal.ts';
import { KafkaFencedError, KafkaSendError } from '../errors.ts';

/**
 * What the broker answers a transactional writer that a newer one of the same transactional id
 * replaced (or whose transaction it timed out): INVALID_PRODUCER_EPOCH (47), or PRODUCER_FENCED
 * (90, which kafkajs 2.2.4 does not know by name).
 */
const FENCED_TYPES = new Set(['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED']);
const FENCED_CODES = new Set([47, 90]);

interface KafkajsErrorLike {
  readonly retriable?: boolean;
  readonly name?: string;
  readonly type?: string;
  readonly code?: unknown;
  readonly cause?: unknown;
  readonly originalError?: unknown;
}

/** A transactional writer's failure: fenced, or whatever toSendError makes of it. */
export function toTransactionError(err: unknown, access: AccessContext): KafkaFencedError | KafkaSendError {
  if (err instanceof KafkaFencedError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // kafkajs asks every broker for the transaction coordinator and drops their answers, an
  // authorization refusal among them; the brokers did answer the connect just before.
  if ((err as KafkajsErrorLike).name === 'KafkaJSGroupCoordinatorNotFound')
    return new KafkaSendError(
      'KAFKA_NOT_AUTHORIZED',
      `no broker named the transaction coordinator, so ${principal(access)} could not ${access.action ?? 'write'}: it may lack DESCRIBE and WRITE on the transactional id (grant the ACLs the component needs, docs/security.md, "ACLs"); with those granted, the cluster's transaction log is unavailable (${message})`,
      { cause: err },
    );
  if (!fenced(err)) return toSendError(err, access);
  return new KafkaFencedError(
    `could not ${access.action ?? 'write'}: a newer writer took this transactional id, or the broker timed out the transaction (${message})`,
    { cause: err },
  );
}

function fenced(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const e = current as KafkajsErrorLike;
    if ((e.type !== undefined && FENCED_TYPES.has(e.type)) || FENCED_CODES.has(e.code as number)) return true;
    current = e.originalError ?? e.cause;
  }
  return false;
}

/** A kafkajs write failure as a KafkaSendError: refused, unavailable or rejected. */
export function toSendError(err: unknown, access: AccessContext): KafkaSendError {
  if (err instanceof KafkaSendError) return err;
  const refused = explainKafkaError(err, access);
  if (refused !== null)
    return new KafkaSendError('KAFKA_NOT_AUTHORIZED', refused.message, { cause: refused });
  const message = err instanceof Error ? err.message : String(err);
  // kafkajs marks transient failures retriable and wraps exhausted retries in
  // KafkaJSNumberOfRetriesExceeded (whose cause is the last retriable error).
  const e = err as KafkajsErrorLike;
  const unavailable =
    e.retriable === true ||
    e.name === 'KafkaJSNumberOfRetriesExceeded' ||
    /connect|timeout|closed/i.test(message);
  return new KafkaSendError(unavailable ? 'KAFKA_UNAVAILABLE' : 'KAFKA_REJECTED', message, { cause: err });
}
