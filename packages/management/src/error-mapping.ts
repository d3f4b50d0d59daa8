import { HookstreamError } from '@hookstream/contracts';
import { KafkaAccessError, KafkaReadError, KafkaSendError } from '@hookstream/kafka';
import { ManagementError, type ManagementErrorCode } from './errors.ts';

/** What the catalog's and the replay tools' codes mean to a management caller. */
const BY_CODE: Readonly<Record<string, ManagementErrorCode>> = {
  UNKNOWN_SUBSCRIBER: 'not_found',
  NO_DLQ: 'not_found',
  EVENT_NOT_FOUND: 'not_found',
  NAME_UNAVAILABLE: 'name_unavailable',
  TENANT_CHANGED: 'tenant_changed',
  NOT_MANAGED: 'not_managed',
  OLD_SEAL: 'old_seal',
  FLEET_TOO_OLD: 'fleet_too_old',
  GROUP_IN_USE: 'group_in_use',
  REPLAY_LEASE_HELD: 'replay_running',
  REPLAY_FENCED: 'replay_running',
  BAD_DEFINITION: 'invalid_definition',
  BAD_OPTION: 'invalid_request',
  BAD_REWIND: 'invalid_request',
  NO_SECRETS_KEY: 'secrets_key_unavailable',
  BAD_SECRETS_KEY: 'secrets_key_unavailable',
  WRONG_SECRETS_KEY: 'secrets_key_unavailable',
  SECRET_UNREADABLE: 'secrets_key_unavailable',
  AUDIT_NOT_WRITTEN: 'audit_not_written',
  KAFKA_UNAVAILABLE: 'kafka_unavailable',
  REVISION_MISMATCH: 'precondition_failed',
  // A pull subscriber this process cannot start serving: its message says why.
  NO_EVENTS_TOPIC: 'pull_unavailable',
  LEDGER_LOST: 'pull_unavailable',
  REGISTRATION_UNREADABLE: 'pull_unavailable',
  // An example's encoder: the registry it needs is away or refuses this process.
  REGISTRY_UNAVAILABLE: 'examples_unavailable',
  REGISTRY_UNAUTHORIZED: 'examples_unavailable',
};

/**
 * Any failure as a ManagementError: the catalog's and replay's coded errors by their code, Kafka
 * being away as 503, anything else as `internal` (whose message the API does not show: it may
 * name internals).
 */
export function managementErrorOf(err: unknown): ManagementError {
  if (err instanceof ManagementError) return err;
  if (err instanceof KafkaReadError || err instanceof KafkaSendError || err instanceof KafkaAccessError)
    return new ManagementError('kafka_unavailable', `Kafka: ${err.message}`, { canRetry: true, cause: err });
  if (err instanceof HookstreamError) {
    const code = BY_CODE[err.code];
    if (code !== undefined)
      return new ManagementError(code, err.message, { canRetry: err.canRetry, cause: err });
  }
  return new ManagementError('internal', 'internal error', { canRetry: false, cause: err });
}
