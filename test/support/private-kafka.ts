import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStackConfig, type StackConfig, silentReporter, stackDown, stackUp } from '@hookstream/stack';
import { freePortRange } from './ports.ts';

/**
 * A Kafka of this test's own (own ports, own state folder), for tests that stop and restart
 * the broker: the shared Kafka serves other tests at the same time and must never go down.
 * Stopping and starting it again keeps its data (same state folder).
 */
export class PrivateKafka {
  readonly config: StackConfig;
  readonly brokers: readonly string[];

  private constructor(config: StackConfig) {
    this.config = config;
    this.brokers = [`${config.host}:${config.kafka.port}`];
  }

  static async start(): Promise<PrivateKafka> {
    const { config } = await privateKafkaConfig('private', 2);
    const kafka = new PrivateKafka(config);
    await kafka.up();
    return kafka;
  }

  async up(): Promise<void> {
    await stackUp({ only: ['kafka'], config: this.config, report: silentReporter });
  }

  async down(): Promise<void> {
    await stackDown({ only: ['kafka'], config: this.config, report: silentReporter });
  }

  /** Stops the broker and deletes its data. */
  async destroy(): Promise<void> {
    await this.down();
    await rm(this.config.stateDir, { recursive: true, force: true });
  }
}

/**
 * A stack config of a test's own: a new state folder and `ports` consecutive free ports, Kafka's
 * and its controller's first (the rest are the caller's), Jaeger off.
 */
export async function privateKafkaConfig(
  name: string,
  ports: number,
): Promise<{ config: StackConfig; port: number }> {
  const stateDir = await mkdtemp(join(tmpdir(), `hookstream-${name}-kafka-`));
  const port = await freePortRange(ports);
  const config = loadStackConfig({
    ...process.env,
    HOOKSTREAM_STATE_DIR: stateDir,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(port + 1),
    HOOKSTREAM_JAEGER: 'off',
  });
  return { config, port };
}
