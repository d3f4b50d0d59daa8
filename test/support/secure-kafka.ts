import { rm } from 'node:fs/promises';
import { SecureKafka, silentReporter } from '@hookstream/stack';
import { privateKafkaConfig } from './private-kafka.ts';

/** The SCRAM users of the secured test broker, and their passwords. */
export const SECURE_USERS = {
  ingress: 'ingress-secret',
  pusher: 'pusher-secret',
  replay: 'replay-secret',
  api: 'api-secret',
  nobody: 'nobody-secret',
} as const;

/** A broker of this test file's own with SASL_SSL + mTLS and ACLs enforced (see SecureKafka). */
export async function startSecureKafka(): Promise<{ kafka: SecureKafka; destroy: () => Promise<void> }> {
  const { config, port } = await privateKafkaConfig('secure', 3);
  const kafka = await SecureKafka.start({
    config,
    securePort: port + 2,
    users: Object.entries(SECURE_USERS).map(([name, password]) => ({ name, password })),
    clientAuth: 'required',
    report: silentReporter,
  });
  return {
    kafka,
    destroy: async () => {
      await kafka.stop();
      await rm(config.stateDir, { recursive: true, force: true });
    },
  };
}

/** The environment a component gets to reach the secured broker as `user` (mTLS included). */
export function secureEnv(kafka: SecureKafka, user: keyof typeof SECURE_USERS): Record<string, string> {
  return {
    KAFKA_BROKERS: kafka.secureBrokers.join(','),
    KAFKA_TLS_CA_FILE: kafka.pki.caPem,
    KAFKA_TLS_CERT_FILE: kafka.pki.clientCertPem,
    KAFKA_TLS_KEY_FILE: kafka.pki.clientKeyPem,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: user,
    KAFKA_SASL_PASSWORD: SECURE_USERS[user],
  };
}
