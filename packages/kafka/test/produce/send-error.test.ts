import {
  KafkaJSGroupCoordinatorNotFound,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KafkaFencedError, KafkaSendError } from '../../src/errors.ts';
import { toSendError, toTransactionError } from '../../src/produce/send-error.ts';

function protocolError(type: string, code: number, retriable = false): Error {
  const error = new KafkaJSProtocolError(type);
  Object.assign(error, { type, code, retriable });
  return error;
}

const access = { action: 'write in a transaction as hookstream.replay.billing' };

describe('toTransactionError', () => {
  it('calls an old producer epoch fenced, by name or by code, also wrapped in retries', () => {
    const epoch = protocolError('INVALID_PRODUCER_EPOCH', 47);
    // kafkajs 2.2.4 knows no name for 90: it reports an unknown error with the code.
    const fenced90 = protocolError('KAFKAJS_UNKNOWN_ERROR', 90);
    const wrapped = new KafkaJSNumberOfRetriesExceeded(epoch, { retryCount: 5, retryTime: 100 } as never);
    for (const err of [epoch, fenced90, wrapped]) {
      const mapped = toTransactionError(err, access);
      expect(mapped).toBeInstanceOf(KafkaFencedError);
      expect(mapped).toMatchObject({ code: 'KAFKA_FENCED', canRetry: false });
      expect(mapped.message).toMatch(
        /^could not write in a transaction as hookstream\.replay\.billing: a newer writer/,
      );
    }
  });

  it('leaves every other failure to toSendError', () => {
    const unavailable = toTransactionError(protocolError('NOT_LEADER_FOR_PARTITION', 6, true), access);
    expect(unavailable).toBeInstanceOf(KafkaSendError);
    expect(unavailable).toMatchObject({ code: 'KAFKA_UNAVAILABLE', canRetry: true });
    const refused = toTransactionError(protocolError('TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 53), access);
    expect(refused).toMatchObject({ code: 'KAFKA_NOT_AUTHORIZED', canRetry: false });
    expect(refused.message).toContain(
      'not authorized to write in a transaction as hookstream.replay.billing',
    );
  });

  it('names the missing transactional-id ACL when no broker names a coordinator', () => {
    // kafkajs's typings declare this constructor without its message argument.
    const NotFound = KafkaJSGroupCoordinatorNotFound as unknown as new (message: string) => Error;
    const lost = new NotFound('Failed to find group coordinator');
    const mapped = toTransactionError(lost, {
      action: 'take transactional id hookstream.replay.billing',
      sasl: { mechanism: 'scram-sha-512', username: 'replay', password: 'x' },
    });
    expect(mapped).toMatchObject({ code: 'KAFKA_NOT_AUTHORIZED', canRetry: false });
    expect(mapped.message).toMatch(
      /^no broker named the transaction coordinator, so user "replay" \(KAFKA_SASL_USERNAME\) could not take transactional id hookstream\.replay\.billing: it may lack DESCRIBE and WRITE/,
    );
    expect(mapped.message).not.toContain('password');
  });

  it('is never what a plain sender reports', () => {
    expect(toSendError(protocolError('INVALID_PRODUCER_EPOCH', 47), {})).toMatchObject({
      code: 'KAFKA_REJECTED',
    });
  });
});
