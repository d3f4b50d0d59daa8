import { CE_HEADER } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

// Issue 28 item 1 on the real stack: five subscribers of one topic, four with filters on
// attributes (ce_ headers) and data (JSON pointers into the decoded Avro), one without. Each
// event must reach exactly the subscribers the table below says (written by hand, not computed),
// every other one settles it as filtered, and `ledger` names the part of the filter that refused.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const prefix = uniqueName('filters');

const FILTERS = {
  eu: { exact: { region: 'eu' } },
  shipping: { prefix: { source: 'shipping/' } },
  'outside-eu': {
    all: [{ exact: { type: 'shipment.updated' } }, { not: { exact: { region: 'eu' } } }],
  },
  'vip-or-three': { any: [{ suffix: { '/note': '-vip' } }, { exact: { '/n': '3' } }] },
  everything: null,
} as const;
type Sub = keyof typeof FILTERS;

interface Row {
  readonly type: string;
  readonly source: string;
  readonly region?: string;
  readonly n: number;
  readonly note: string;
  readonly reaches: readonly Sub[];
}

const TABLE: readonly Row[] = [
  {
    type: 'shipment.updated',
    source: 'shipping/eu-1',
    region: 'eu',
    n: 100,
    note: 'plain',
    reaches: ['eu', 'shipping', 'everything'],
  },
  {
    type: 'shipment.updated',
    source: 'billing/us',
    region: 'us',
    n: 101,
    note: 'x-vip',
    reaches: ['outside-eu', 'vip-or-three', 'everything'],
  },
  { type: 'key.revoked', source: 'shipping/us', n: 102, note: 'plain', reaches: ['shipping', 'everything'] },
  {
    type: 'key.revoked',
    source: 'billing/eu',
    region: 'eu',
    n: 103,
    note: 'y-vip',
    reaches: ['eu', 'vip-or-three', 'everything'],
  },
  {
    type: 'shipment.updated',
    source: 'shipping/eu-2',
    n: 3,
    note: 'plain',
    reaches: ['shipping', 'outside-eu', 'vip-or-three', 'everything'],
  },
];

describe('subscriber filters on attributes and data', () => {
  openForSuite(fx, factory, receivers);

  it('each event reaches exactly the subscribers whose filter takes it; ledger names the refusing part', async () => {
    const topic = await fx.topic(2);
    const endpoint = await receivers.start();
    const subs = Object.keys(FILTERS) as Sub[];
    const nameOf = (sub: Sub) => `${prefix}-${sub}`;
    for (const sub of subs) {
      const filter = FILTERS[sub];
      await fx.startPusher(topic, {
        name: nameOf(sub),
        url: endpoint.url,
        ...(filter === null ? {} : { filter }),
      });
    }
    const events: TestEvent[] = TABLE.map((row) => ({
      ...factory.event(row.type),
      data: { n: row.n, note: row.note },
    }));
    const messages = await Promise.all(
      events.map(async (e, i) => {
        const row = TABLE[i] as Row;
        const m = await factory.message(e);
        m.headers[CE_HEADER.source] = row.source;
        if (row.region !== undefined) m.headers.ce_region = row.region;
        return m;
      }),
    );
    await fx.producer.send({ topic, acks: -1, messages });
    for (const sub of subs) await fx.settledEverything(nameOf(sub), topic);

    const accepted = (sub: Sub) =>
      endpoint.arrivals
        .filter((a) => a.subscriptionId === nameOf(sub) && a.status >= 200 && a.status < 300)
        .map((a) => a.eventId)
        .sort();
    for (const sub of subs) {
      const expected = events.filter((_, i) => (TABLE[i] as Row).reaches.includes(sub)).map((e) => e.id);
      expect(accepted(sub), sub).toEqual(expected.sort());
    }

    // The first row reached neither outside-eu (its region is eu) nor vip-or-three.
    const first = events[0] as TestEvent;
    const refusal = async (sub: Sub) => {
      const run = await runCli(
        ['ledger', first.id, '--topic', topic, '--subscriber', nameOf(sub), '--json'],
        process.env,
      );
      if (run.code !== 0) throw new Error(`ledger exited ${run.code}: ${run.stderr}`);
      const answer = JSON.parse(run.stdout) as {
        subscribers: { ledger: { state: string; filter?: string } }[];
      };
      return answer.subscribers[0]?.ledger;
    };
    await waitFor('the attempt log to hold the filtered steps', async () =>
      (await refusal('outside-eu'))?.state === 'filtered' ? true : undefined,
    );
    expect(await refusal('outside-eu')).toMatchObject({
      state: 'filtered',
      filter: 'filter.all[1].not',
    });
    expect(await refusal('vip-or-three')).toMatchObject({ state: 'filtered', filter: 'filter.any' });
  }, 120_000);
});
