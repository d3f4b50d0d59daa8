import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { componentAcls, dlqTopicName, loadConnectionSettings } from '@hookstream/contracts';
import { createKafka, type KafkaAdmin, KafkaSendError, RecordSender, readTopic } from '@hookstream/kafka';
import type { SecureKafka } from '@hookstream/stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { post, startTestIngress } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { spawnPusherCli } from '../support/pusher-process.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { SECURE_USERS, secureEnv, startSecureKafka } from '../support/secure-kafka.ts';
import { waitFor } from '../support/wait.ts';

const shipment = { type: 'shipment.updated', data: { shipment: { id: 'shp-sec', status: 'in_transit' } } };

let secure: Awaited<ReturnType<typeof startSecureKafka>>;
let kafka: SecureKafka;
/** Super user on the plaintext listener: creates topics and grants ACLs. */
let setup: KafkaAdmin;
const receivers = new ReceiverPool();
const eventsTopic = uniqueName('secure-events');

beforeAll(async () => {
  secure = await startSecureKafka();
  kafka = secure.kafka;
  setup = createKafka({ brokers: kafka.plaintextBrokers, clientId: 'secure-setup', quiet: true }).admin();
  await setup.connect();
  await setup.ensureTopics([{ topic: eventsTopic, partitions: 3, replicationFactor: 1 }]);
  await setup.grant('User:ingress', componentAcls({ role: 'ingress', eventsTopic }));
  await setup.grant('User:pusher', componentAcls({ role: 'pusher', eventsTopic }));
}, 180_000);

afterAll(async () => {
  await receivers.closeAll();
  await setup?.disconnect();
  await secure?.destroy();
});

/** A component's own connection to the secure listener, as `user`. */
function connectionAs(user: keyof typeof SECURE_USERS, env: Record<string, string> = {}) {
  return createKafka({
    ...loadConnectionSettings({ ...secureEnv(kafka, user), ...env }).kafka,
    clientId: `as-${user}`,
    quiet: true,
  });
}

/** `hookstream push` started with `env`, expected to stop at start-up: its exit code and output. */
async function failedPush(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const name = uniqueName('sec-fail');
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-sec-'));
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify({ name, url: 'http://127.0.0.1:9/hooks', allowPrivateNetwork: true }));
  const child = spawnCli(['push', '--config', file, '--topic', eventsTopic], { ...process.env, ...env });
  const { code } = await exited(child);
  return { code, output: child.output() };
}

describe('hookstream on a SASL_SSL broker with mTLS and ACLs', () => {
  it('delivers ingress → pusher → receiver with only the documented ACLs', async () => {
    const receiver = await receivers.start();
    const name = uniqueName('sec-sub');
    const pusher = await spawnPusherCli(
      eventsTopic,
      { name, url: `${receiver.url}/hooks`, retry: { delaysMs: [300], maxAttempts: 3 } },
      { env: secureEnv(kafka, 'pusher') },
    );
    const ingress = await startTestIngress(eventsTopic, {
      ...secureEnv(kafka, 'ingress'),
      INGRESS_LOG_LEVEL: 'silent',
    });
    try {
      const answer = await post(`${ingress.url}/v1/events`, shipment);
      expect(answer.status).toBe(202);
      const eventId = (answer.body as { event_id: string }).event_id;
      await waitFor('the event to reach the receiver', async () =>
        receiver.arrivals.some((a) => a.eventId === eventId) ? true : undefined,
      );
    } finally {
      await ingress.close();
      expect(await pusher.stop()).toBe(0);
    }
  });

  it('keeps the ingress out of a DLQ and a pusher out of the events topic', async () => {
    const dlq = dlqTopicName(uniqueName('sec-dlq'));
    await setup.ensureTopics([{ topic: dlq, partitions: 1, replicationFactor: 1 }]);
    const asIngress = connectionAs('ingress');
    await expect(readTopic(asIngress, { topic: dlq, purpose: 'security-test' })).rejects.toThrow(
      /not authorized|does not exist/,
    );
    const sender = new RecordSender(connectionAs('pusher'));
    await sender.connect();
    try {
      const refused = await sender
        .send(eventsTopic, [{ key: 'k', value: Buffer.from('x'), headers: {} }])
        .catch((e) => e);
      expect(refused).toBeInstanceOf(KafkaSendError);
      expect(refused).toMatchObject({
        code: 'KAFKA_NOT_AUTHORIZED',
        canRetry: false,
        message: expect.stringMatching(
          /user "pusher" \(KAFKA_SASL_USERNAME\) is not authorized to write to topic/,
        ),
      });
    } finally {
      await sender.disconnect();
    }
  });

  it.each([
    [
      'a wrong password',
      { KAFKA_SASL_PASSWORD: 'wrong' },
      /KAFKA_SASL_PASSWORD: Kafka refused user "pusher"/,
    ],
    [
      'a CA that did not sign the broker',
      { KAFKA_TLS_CA_FILE: 'other' },
      /KAFKA_TLS_CA_FILE: the broker's certificate is not signed/,
    ],
    [
      'no client certificate',
      { KAFKA_TLS_CERT_FILE: '', KAFKA_TLS_KEY_FILE: '' },
      /KAFKA_TLS_CERT_FILE: the broker (requires|refused) a client certificate/,
    ],
    [
      'a user without ACLs',
      { KAFKA_SASL_USERNAME: 'nobody', KAFKA_SASL_PASSWORD: SECURE_USERS.nobody },
      /user "nobody" \(KAFKA_SASL_USERNAME\) is not authorized/,
    ],
  ])('stops a pusher at start-up on %s, naming the setting', async (_, change, message) => {
    const env: Record<string, string> = { ...secureEnv(kafka, 'pusher'), ...change };
    if (env.KAFKA_TLS_CA_FILE === 'other') env.KAFKA_TLS_CA_FILE = kafka.pki.otherCaPem;
    for (const [k, v] of Object.entries(env)) if (v === '') delete env[k];
    const { code, output } = await failedPush(env);
    expect(code).not.toBe(0);
    expect(output).toMatch(message);
    expect(output).not.toContain(SECURE_USERS.pusher);
  });

  it('answers 503 naming the ACL when the ingress principal may not write the topic', async () => {
    const topic = uniqueName('secure-readonly');
    await setup.ensureTopics([{ topic, partitions: 1, replicationFactor: 1 }]);
    await setup.grant('User:nobody', [
      { resource: 'topic', pattern: 'literal', name: topic, operations: ['DESCRIBE'] },
    ]);
    const ingress = await startTestIngress(topic, {
      ...secureEnv(kafka, 'nobody'),
      INGRESS_LOG_LEVEL: 'silent',
    });
    try {
      const answer = await post(`${ingress.url}/v1/events`, shipment);
      expect(answer.status).toBe(503);
      expect(JSON.stringify(answer.body)).toMatch(/kafka_not_authorized.*not authorized to write to topic/);
    } finally {
      await ingress.close();
    }
  });

  it('refuses a wrong password at ingress start-up, never a 202', async () => {
    await expect(
      startTestIngress(eventsTopic, {
        ...secureEnv(kafka, 'ingress'),
        KAFKA_SASL_PASSWORD: 'wrong',
        INGRESS_LOG_LEVEL: 'silent',
      }),
    ).rejects.toThrow(/KAFKA_SASL_PASSWORD: Kafka refused user "ingress"/);
  });
});
