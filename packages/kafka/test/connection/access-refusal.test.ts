import {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSSASLAuthenticationError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { explainKafkaError } from '../../src/connection/access-refusal.ts';
import { KafkaAccessError } from '../../src/errors.ts';

const sasl = { mechanism: 'scram-sha-512', username: 'pusher', password: 'hunter2' } as const;
const tls = { ca: 'PEM', cert: undefined, key: undefined, checkServerName: true } as const;

/** A TLS failure as kafkajs reports it: the socket's error code on a connection error, after retries. */
function tlsFailure(code: string): Error {
  const connection = new KafkaJSConnectionError(`Connection error: ${code.toLowerCase()}`, { code } as never);
  return new KafkaJSNumberOfRetriesExceeded(connection, { retryCount: 5, retryTime: 100 } as never);
}

/** kafkajs's typings declare this constructor without its message argument. */
function saslFailure(): Error {
  const Sasl = KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;
  return new Sasl('SASL SCRAM SHA512 authentication failed');
}

function protocolError(type: string): Error {
  const error = new KafkaJSProtocolError(type);
  (error as unknown as { type: string }).type = type;
  return error;
}

describe('explainKafkaError', () => {
  it.each([
    [
      'a refused SCRAM login',
      saslFailure(),
      'KAFKA_AUTH_FAILED',
      /^KAFKA_SASL_PASSWORD: Kafka refused user "pusher" with scram-sha-512/,
    ],
    [
      'a broker certificate from another CA',
      tlsFailure('SELF_SIGNED_CERT_IN_CHAIN'),
      'KAFKA_TLS_FAILED',
      /^KAFKA_TLS_CA_FILE: .*the CA in KAFKA_TLS_CA_FILE/,
    ],
    [
      'an unverifiable leaf',
      tlsFailure('UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
      'KAFKA_TLS_FAILED',
      /^KAFKA_TLS_CA_FILE/,
    ],
    [
      'a certificate for another host',
      tlsFailure('ERR_TLS_CERT_ALTNAME_INVALID'),
      'KAFKA_TLS_FAILED',
      /^KAFKA_BROKERS: .*KAFKA_TLS_CHECK_SERVER_NAME/,
    ],
    [
      'a broker that wants a client certificate',
      tlsFailure('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'),
      'KAFKA_TLS_FAILED',
      /^KAFKA_TLS_CERT_FILE: the broker requires a client certificate/,
    ],
    [
      'TLS to a plaintext listener',
      tlsFailure('ERR_SSL_WRONG_VERSION_NUMBER'),
      'KAFKA_TLS_FAILED',
      /^KAFKA_TLS: .*does not speak TLS/,
    ],
    [
      'a missing topic ACL',
      protocolError('TOPIC_AUTHORIZATION_FAILED'),
      'KAFKA_NOT_AUTHORIZED',
      /user "pusher" \(KAFKA_SASL_USERNAME\) is not authorized to write to topic t/,
    ],
    [
      'a missing group ACL',
      protocolError('GROUP_AUTHORIZATION_FAILED'),
      'KAFKA_NOT_AUTHORIZED',
      /GROUP_AUTHORIZATION_FAILED/,
    ],
  ])('names the setting behind %s, and says retrying will not help', (_, error, code, message) => {
    const explained = explainKafkaError(error, { sasl, tls, action: 'write to topic t' });
    expect(explained).toBeInstanceOf(KafkaAccessError);
    expect(explained).toMatchObject({ code, canRetry: false, message: expect.stringMatching(message) });
    expect(explained?.message).not.toContain('hunter2');
  });

  it('leaves an outage alone: it is not an access problem', () => {
    expect(explainKafkaError(tlsFailure('ECONNREFUSED'), { sasl })).toBeNull();
    expect(explainKafkaError(protocolError('NOT_LEADER_FOR_PARTITION'), { sasl })).toBeNull();
    expect(explainKafkaError(new Error('Connection timeout'), {})).toBeNull();
  });
});
