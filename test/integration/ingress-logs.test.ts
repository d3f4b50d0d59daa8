import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { post, TOKENS } from '../support/ingress.ts';
import { spawnIngressCli } from '../support/ingress-process.ts';
import { uniqueName } from '../support/names.ts';
import { createTopic } from '../support/topic.ts';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly event_id?: string;
  readonly event_ids?: string[];
  readonly trace_id?: string;
  readonly code?: string;
  readonly status?: number;
}

describe('what the ingress logs', () => {
  it('one line per accepted (debug) and refused request, with ids and codes; never tokens or event data', async () => {
    const topic = uniqueName('ingress-logs');
    await createTopic(topic, 3);
    // Debug level on purpose: the most the ingress ever logs, with tracing on so lines carry trace ids.
    const ingress = await spawnIngressCli(topic, { INGRESS_LOG_LEVEL: 'debug' });
    const secretData = `data-value-${randomUUID()}`;
    const shortSecret = `leak${randomUUID().slice(0, 8)}`;
    const wrongToken = `wrong-token-${randomUUID()}`;
    const accepted = [`evt_${randomUUID()}`, `evt_${randomUUID()}`];
    const refusedId = `evt_${randomUUID()}`;
    let code: number | null;
    try {
      const url = `${ingress.url}/v1/events`;
      const event = (id: string) => ({
        id,
        type: 'key.revoked',
        data: { tenant_id: secretData, key_id: secretData },
      });
      expect((await post(url, event(accepted[0] as string))).status).toBe(202);
      expect((await post(url, event(accepted[1] as string), { token: TOKENS.keysOnly })).status).toBe(202);
      expect((await post(url, event(refusedId), { token: wrongToken })).status).toBe(401);
      // Short and not JSON, so JSON.parse's error message quotes all of it: logging that leaks it.
      expect((await post(url, shortSecret)).status).toBe(400);
      const invalid = { type: 'key.revoked', data: { tenant_id: secretData } };
      expect((await post(url, invalid)).status).toBe(400);
      const shipment = {
        type: 'shipment.updated',
        data: { shipment: { id: secretData, status: secretData } },
      };
      expect((await post(url, shipment, { token: TOKENS.keysOnly })).status).toBe(403);
    } finally {
      code = await ingress.stop();
    }
    expect(code).toBe(0);
    const { stdout, stderr } = ingress.output();
    const everything = stdout + stderr;
    for (const secret of [TOKENS.all, TOKENS.keysOnly, wrongToken, secretData, shortSecret])
      expect(everything).not.toContain(secret);

    const lines = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
    for (const id of accepted) {
      const line = lines.find((l) => l.msg === 'accepted' && l.event_id === id);
      expect(line?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    }
    const refused = lines.filter((l) => l.msg === 'request refused');
    expect(refused.map((l) => [l.code, l.status])).toEqual([
      ['unauthorized', 401],
      ['malformed_json', 400],
      ['invalid_data', 400],
      ['forbidden_type', 403],
    ]);
    for (const l of refused) expect(l.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const messages = lines.map((l) => l.msg);
    expect(messages).toContain('ingress starting');
    expect(messages).toContain('ingress listening');
    expect(messages).toContain('ingress stopping: draining in-flight requests');
    expect(messages).toContain('ingress stopped');
  }, 60_000);
});
