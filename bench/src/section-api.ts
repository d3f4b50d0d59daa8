import { type ApiBenchResult, runApiBench } from './api-bench.ts';
import { defineSection } from './report-section.ts';

/** Issue 27's targets for the management API with a catalog of 1,000 subscribers. */
const GET_P99_MS = 50;
const PUT_P99_MS = 100;

export const apiSection = defineSection<ApiBenchResult>({
  id: 'api',
  title: 'Management API: list and conditional write',
  method:
    'The management API in the benchmark process (as `hookstream api` wires it) against the stack, with ' +
    "subscribers of one tenant of the benchmark's own in the catalog: `GET /v1/subscribers` (the first " +
    'page of 100, asked again and again as a dashboard polls it), the same after a random cursor (another ' +
    'page each time), `GET /v1/subscribers/{name}`, and `PUT /v1/subscribers/{name}` with `If-Match` ' +
    'changing the record each time, one request at a time over loopback HTTP (`hookstream bench api`). ' +
    'Its subscribers are tombstoned afterwards.',
  run: (ctx) =>
    runApiBench({
      connection: ctx.connection,
      subscribers: ctx.scale.apiSubscribers,
      requests: ctx.scale.apiRequests,
      writes: ctx.scale.apiWrites,
      report: ctx.progress,
    }),
  figures: (r) => {
    const of = `${r.subscribers.toLocaleString('en-US')} subscribers`;
    return [
      {
        id: 'api.list.p50',
        label: `GET /v1/subscribers p50, ${of}`,
        value: r.list.p50Ms,
        unit: 'ms',
        baselines: [],
      },
      {
        id: 'api.list.p99',
        label: `GET /v1/subscribers p99, ${of}`,
        value: r.list.p99Ms,
        unit: 'ms',
        baselines: [],
      },
      {
        id: 'api.list.cursor.p99',
        label: `GET /v1/subscribers?cursor= p99 (another page each time), ${of}`,
        value: r.listOtherPages.p99Ms,
        unit: 'ms',
        baselines: [],
      },
      {
        id: 'api.get.p99',
        label: 'GET /v1/subscribers/{name} p99',
        value: r.get.p99Ms,
        unit: 'ms',
        baselines: [],
      },
      {
        id: 'api.put.p50',
        label: 'PUT /v1/subscribers/{name} p50',
        value: r.put.p50Ms,
        unit: 'ms',
        baselines: [],
      },
      {
        id: 'api.put.p99',
        label: 'PUT /v1/subscribers/{name} p99',
        value: r.put.p99Ms,
        unit: 'ms',
        baselines: [],
      },
    ];
  },
  targets: (r) => {
    const errors = r.list.errors + r.listOtherPages.errors + r.get.errors + r.put.errors;
    const getP99 = Math.max(r.list.p99Ms, r.listOtherPages.p99Ms, r.get.p99Ms);
    return [
      {
        target: `API GET p99 ≤ ${GET_P99_MS} ms (${r.subscribers.toLocaleString('en-US')} subscribers)`,
        measured: `${getP99} ms (list ${r.list.p99Ms}, other pages ${r.listOtherPages.p99Ms}, one ${r.get.p99Ms})`,
        met: errors === 0 && getP99 <= GET_P99_MS,
      },
      {
        target: `API PUT p99 ≤ ${PUT_P99_MS} ms`,
        measured: `${r.put.p99Ms} ms (p50 ${r.put.p50Ms} ms)${errors > 0 ? `; ${errors} requests failed` : ''}`,
        met: errors === 0 && r.put.p99Ms <= PUT_P99_MS,
      },
    ];
  },
  chart: (r) => ({
    latency: [
      { label: 'API GET /v1/subscribers', p50Ms: r.list.p50Ms, p99Ms: r.list.p99Ms },
      { label: 'API PUT /v1/subscribers/{name}', p50Ms: r.put.p50Ms, p99Ms: r.put.p99Ms },
    ],
  }),
  details: (r) =>
    `Calls per route: ${r.list.count} list, ${r.listOtherPages.count} other pages, ${r.get.count} single reads, ` +
    `${r.put.count} writes; the catalog held ${r.catalogSubscribers.toLocaleString('en-US')} subscribers in all.`,
});
