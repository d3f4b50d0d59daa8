import { type ConnectionSettings, HookstreamError, loadConnectionSettings } from '@hookstream/contracts';

/**
 * How the tools reach Kafka, the registry and Redis, from the one shared schema (KAFKA_BROKERS /
 * KAFKA_PORT, the KAFKA_TLS_* and KAFKA_SASL_* settings, REGISTRY_URL / REGISTRY_PORT and its
 * credentials, HOOKSTREAM_LIMITER_REDIS): the same variables and defaults as the ingress.
 * Parsed once per process; a bad value stops the command naming it.
 */
let parsed: ConnectionSettings | undefined;
/** Set in remote mode (--api): every Kafka client and producer of the tools starts here. */
let refusal: string | null = null;

export function runtimeConnection(): ConnectionSettings {
  // A Kafka connection in remote mode is a bug: it fails at once instead of waiting on a broker.
  if (refusal !== null)
    throw new HookstreamError(
      'INTERNAL',
      `${refusal} opens no Kafka connection, yet one was asked for`,
      false,
    );
  parsed ??= loadConnectionSettings(process.env);
  return parsed;
}

/** From now on, runtimeConnection() throws: this process talks to the management API only. */
export function refuseConnections(mode: string): void {
  refusal = mode;
}
