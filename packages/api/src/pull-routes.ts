import {
  AckAnswer,
  AckBody,
  ErrorBody,
  LeaseAnswer,
  LeaseQuery,
  NackAnswer,
  NackBody,
  NameParams,
  NoParams,
} from '@hookstream/api-schemas';
import type { LeaseGranted, ManagementService } from '@hookstream/management';
import { defineRoute, RawJson, type ResponseSpec, type Route } from './route.ts';

const ok = (description: string, schema: ResponseSpec['schema']): ResponseSpec => ({ description, schema });
const notFound = ok("Not found (or another tenant's)", ErrorBody);
const refused = ok(
  'lease_unknown, lease_expired, cursor_unknown, cursor_past, event_not_leased, not_pull: nothing moved',
  ErrorBody,
);

/** The pull subscriber's routes: lease, ack, nack (docs/api.md, "Pull"). */
export function pullRoutes(service: ManagementService): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/subscribers/{name}/events',
      operationId: 'leaseEvents',
      summary:
        "Leases up to `max` of a pull subscriber's events for `lease` seconds, waiting up to `wait` for the first",
      params: NameParams,
      query: LeaseQuery,
      responses: {
        200: ok('A lease (null when no event came within the wait) and its events', LeaseAnswer),
        404: notFound,
        409: ok('not_pull, subscriber_not_active', ErrorBody),
        503: ok('pull_unavailable: this API process serves no pull subscribers', ErrorBody),
      },
      handle: async ({ caller, params, query, signal }) => ({
        status: 200,
        body: leaseJson(
          await service.leaseEvents(caller, params.name, {
            max: query.max,
            waitMs: query.wait * 1000,
            leaseMs: query.lease * 1000,
            signal,
          }),
        ),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/subscribers/{name}/ack',
      operationId: 'ackEvents',
      summary: "Acknowledges a lease's events (by cursor, by event id, or all): settled, the ledger moves",
      params: NameParams,
      query: NoParams,
      body: AckBody,
      responses: { 200: ok('How many were acknowledged', AckAnswer), 404: notFound, 409: refused },
      handle: async ({ caller, params, body }) => ({
        status: 200,
        body: await service.ackEvents(caller, params.name, body.lease, body),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/subscribers/{name}/nack',
      operationId: 'nackEvents',
      summary:
        "Ends a lease's events early: leasable again at once, or down the retry schedule after delayMs",
      params: NameParams,
      query: NoParams,
      body: NackBody,
      responses: { 200: ok('How many were given back', NackAnswer), 404: notFound, 409: refused },
      handle: async ({ caller, params, body }) => ({
        status: 200,
        body: await service.nackEvents(caller, params.name, body.lease, body, body.delayMs ?? null),
      }),
    }),
  ];
}

/** The answer as JSON text: the events are JSON already, joined rather than parsed and made again. */
function leaseJson(granted: LeaseGranted): RawJson {
  return new RawJson(
    `{"lease":${JSON.stringify(granted.lease)},"events":[${granted.events.join(',')}],"cursors":${JSON.stringify(granted.cursors)}}`,
  );
}
