import { randomUUID } from 'node:crypto';
import { SampleReceiver } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { newSecret } from '../support/events.ts';
import { post, TOKENS } from '../support/ingress.ts';
import { spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { spawnPusherCli } from '../support/pusher-process.ts';
import { createTopic } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly subscriber?: string;
  readonly event_id?: string;
  readonly attempt?: number;
  readonly outcome?: string;
  readonly trace_id?: string;
}

describe('what an ingress and a pusher log', () => {
  it('delivered, retried and dead-lettered lines with ids and trace ids; never the token, the signing secret, signatures or event data', async () => {
    const topic = uniqueName('pusher-logs');
    const name = uniqueName('logged');
    const secret = newSecret();
    const secretData = `data-value-${randomUUID()}`;
    await createTopic(topic, 3);
    const receiver = new SampleReceiver({
      secret,
      record: true,
      behaviour: { failTimes: 1, failStatus: 500 },
    });
    await receiver.listen();
    // Debug on both: the most either ever logs.
    const ingress = await spawnIngressCli(topic, { INGRESS_LOG_LEVEL: 'debug' });
    const pusher = await spawnPusherCli(
      topic,
      {
        name,
        url: `${receiver.url}/hooks`,
        secret: { env: 'HOOKSTREAM_SECRET_TEST_PUSHER' },
        retry: { delaysMs: [300], maxAttempts: 3 },
      },
      { env: { HOOKSTREAM_SECRET_TEST_PUSHER: secret }, args: ['--log-level', 'debug'] },
    );
    const retried = `evt_${randomUUID()}`;
    const dead = `evt_${randomUUID()}`;
    const publish = async (id: string) =>
      expect(
        (
          await post(`${ingress.url}/v1/events`, {
            id,
            type: 'key.revoked',
            data: { tenant_id: secretData, key_id: secretData },
          })
        ).status,
      ).toBe(202);
    let codes: (number | null)[];
    try {
      await publish(retried);
      await waitFor('the retried event to be accepted', async () =>
        receiver.hasAccepted(name, retried) ? true : undefined,
      );
      receiver.setBehaviour({ failTimes: 0, fixedStatus: 400 });
      await publish(dead);
      await waitFor('the 400 to be dead-lettered', async () =>
        pusher.output().includes(`"msg":"dead-lettered"`) ? true : undefined,
      );
    } finally {
      codes = await Promise.all([pusher.stop(), ingress.stop()]);
      await receiver.close();
    }
    expect(codes).toEqual([0, 0]);
    expect(receiver.stats().badSignatures).toBe(0);

    const { stdout, stderr } = ingress.output();
    const everything = stdout + stderr + pusher.output();
    const signatures = receiver.arrivals.map((a) => a.headers?.['webhook-signature']);
    expect(signatures.length).toBeGreaterThanOrEqual(3);
    const secrets = [
      TOKENS.all,
      TOKENS.keysOnly,
      secret,
      secret.slice('whsec_'.length),
      secretData,
      ...signatures.map((s) => s?.split(',')[1]),
    ];
    for (const value of secrets) {
      expect(value).toBeTruthy();
      expect(everything).not.toContain(value);
    }

    const lines = pusher
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
    const line = (msg: string, id: string) => lines.find((l) => l.msg === msg && l.event_id === id);
    expect(line('retry scheduled', retried)).toMatchObject({
      attempt: 1,
      outcome: 'server-error',
      subscriber: name,
    });
    expect(line('delivered', retried)).toMatchObject({ attempt: 2, outcome: 'accepted', subscriber: name });
    expect(line('dead-lettered', dead)).toMatchObject({
      attempt: 1,
      outcome: 'client-error',
      subscriber: name,
    });
    // Every line about the event names its trace, the one the ingress started.
    const accepted = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine)
      .find((l) => l.msg === 'accepted' && l.event_id === retried);
    expect(accepted?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(line('retry scheduled', retried)?.trace_id).toBe(accepted?.trace_id);
    expect(line('delivered', retried)?.trace_id).toBe(accepted?.trace_id);
  }, 120_000);
});
