import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStackConfig, SecureKafka, silentReporter } from '@hookstream/stack';
import { freePortRange } from './ports.ts';

/** The SCRAM users of the secured test broker, and their passwords. */
export const SECURE_USERS = {
  ingress: 'ingress-secret',
  pusher: 'pusher-secret',
  replay: 'replay-secret',
  nobody: 'nobody-secret',
} as const;

/** A broker of this test file's own with SASL_SSL + mTLS and ACLs enforced (see SecureKafka). */
export async function startSecureKafka(): Promise<{ kafka: SecureKafka; destroy: () => Promise<void> }> {
  const stateDir = await mkdtemp(join(tmpdir(), 'hookstream-secure-kafka-'));
  const port = await freePortRange(3);
  const config = loadStackConfig({
    ...process.env,
    HOOKSTREAM_STATE_DIR: stateDir,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(port + 1),
    HOOKSTREAM_JAEGER: 'off',
  });
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
      await rm(stateDir, { recursive: true, force: true });
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
