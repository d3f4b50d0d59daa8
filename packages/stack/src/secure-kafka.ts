import { join } from 'node:path';
import { KafkaComponent, singleNode } from './components/kafka.ts';
import type { StackConfig } from './config.ts';
import { generateTestPki, type TestPki } from './pki.ts';
import type { Reporter } from './progress.ts';
import { stackDown, stackUp } from './stack.ts';

export interface SecureKafkaOptions {
  /** Folders, cache and the plaintext/controller ports (config.kafka). */
  readonly config: StackConfig;
  /** The SASL_SSL listener's port. */
  readonly securePort: number;
  readonly users: readonly { readonly name: string; readonly password: string }[];
  readonly clientAuth: 'required' | 'none';
  readonly report: Reporter;
}

/**
 * One broker with a SASL_SSL listener (SCRAM, TLS from a generated CA, optional mTLS) and ACLs
 * enforced, beside a plaintext listener whose anonymous clients are super users for setup.
 */
export class SecureKafka {
  readonly plaintextBrokers: readonly string[];
  readonly secureBrokers: readonly string[];
  readonly pki: TestPki;
  readonly #node: KafkaComponent;
  readonly #options: SecureKafkaOptions;

  private constructor(options: SecureKafkaOptions, pki: TestPki) {
    this.#options = options;
    this.pki = pki;
    const { config } = options;
    this.#node = new KafkaComponent(config, {
      ...singleNode(config),
      heap: '512m',
      secure: {
        port: options.securePort,
        keystorePem: pki.brokerKeystorePem,
        truststorePem: pki.caPem,
        clientAuth: options.clientAuth,
        scramUsers: options.users,
      },
    });
    this.plaintextBrokers = [`${config.host}:${config.kafka.port}`];
    this.secureBrokers = [`${config.host}:${options.securePort}`];
  }

  static async start(options: SecureKafkaOptions): Promise<SecureKafka> {
    const pki = await generateTestPki(join(options.config.stateDir, 'pki'));
    const kafka = new SecureKafka(options, pki);
    await kafka.#node.install(options.report);
    await stackUp({ config: options.config, report: options.report, components: [kafka.#node] });
    return kafka;
  }

  async stop(): Promise<void> {
    await stackDown({ config: this.#options.config, report: this.#options.report, components: [this.#node] });
  }
}
