import { BreakerSettings } from '@hookstream/contracts';
import { classify, type FleetBreakerChange } from '@hookstream/delivery';
import { describe, expect, it } from 'vitest';
import { failingNotice, recoveredNotice } from '../src/breaker-notices.ts';
import { EndpointHealth } from '../src/endpoint-health.ts';
import { topology } from './fakes.ts';

const subject = {
  name: 'billing',
  tenant: 'acme',
  destination: 'hooks.example.com:8443',
  eventsTopic: 'events',
};
const at = (iso: string) => Date.parse(iso);

describe('failingNotice and recoveredNotice', () => {
  it("say the subscriber, its host, since when and the last failure, to the subscriber's tenant", () => {
    const notice = failingNotice(
      subject,
      {
        kind: 'opened',
        cause: 'consecutive-failures',
        openedAtMs: at('2026-12-10T10:00:05.000Z'),
        failingSinceMs: at('2026-12-10T10:00:00.000Z'),
      },
      classify({ kind: 'response', status: 503 }, 0),
    );
    expect(notice).toEqual({
      type: 'subscriber.failing',
      id: `subscriber.failing:billing:${at('2026-12-10T10:00:05.000Z')}`,
      key: 'billing',
      tenant: 'acme',
      data: {
        subscriber: 'billing',
        destination: 'hooks.example.com:8443',
        cause: 'consecutive-failures',
        opened_at: '2026-12-10T10:00:05.000Z',
        failing_since: '2026-12-10T10:00:00.000Z',
        last_status: 503,
        last_outcome: 'server-error',
        events_topic: 'events',
      },
    });
  });

  it('recovered says how long it failed, and shares the id of the opening it ends', () => {
    const openedAtMs = at('2026-12-10T10:00:05.000Z');
    const notice = recoveredNotice(
      { ...subject, tenant: undefined },
      { kind: 'closed', openedAtMs, failingSinceMs: null, closedAtMs: openedAtMs + 90_000 },
    );
    expect(notice.id).toBe(`subscriber.recovered:billing:${openedAtMs}`);
    expect('tenant' in notice).toBe(false);
    expect(notice.data).toMatchObject({
      failing_ms: 90_000,
      failing_since: null,
      recovered_at: '2026-12-10T10:01:35.000Z',
    });
  });
});

describe('EndpointHealth announces the fleet changes with the last failure it saw', () => {
  it('once when it opens, once when it closes', async () => {
    const announced: [FleetBreakerChange['kind'], number | null][] = [];
    const health = new EndpointHealth({
      definition: topology({ breaker: BreakerSettings.parse({ consecutiveFailures: 2 }) }).definition,
      log: () => undefined,
      disable: async () => undefined,
      announce: (change, last) => announced.push([change.kind, last?.status ?? null]),
    });
    health.attempted(classify({ kind: 'response', status: 502 }, 0), false, 'e1');
    health.attempted(classify({ kind: 'timeout' }, 0), false, 'e2');
    health.attempted(classify({ kind: 'response', status: 503 }, 0), false, 'e3');
    expect(announced).toEqual([['opened', null]]);
    health.attempted(classify({ kind: 'response', status: 204 }, 0), true, 'e4');
    expect(announced).toEqual([
      ['opened', null],
      ['closed', 503],
    ]);
    await health.stop();
  });
});
