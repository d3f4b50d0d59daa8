import {
  AuditList,
  AuditQuery,
  DeadLetterList,
  DeadLetterQuery,
  DeleteAnswer,
  DeleteQuery,
  ErrorBody,
  EventParams,
  EventTypeList,
  Job,
  JobParams,
  LedgerAnswer,
  ListQuery,
  NameParams,
  NoParams,
  OpenApiDocument,
  PauseBody,
  PutAnswer,
  PutBody,
  ReplayBody,
  RewindAnswer,
  RewindBody,
  RotateBody,
  SecretAnswer,
  StateAnswer,
  SubscriberList,
  SubscriberResource,
} from '@hookstream/api-schemas';
import type { ManagementService } from '@hookstream/management';
import type { DlqSelection } from '@hookstream/replay';
import type { z } from 'zod';
import { messageRoutes } from './message-routes.ts';
import { pullRoutes } from './pull-routes.ts';
import { defineRoute, type ResponseSpec, type Route } from './route.ts';

const ok = (description: string, schema: z.ZodType): ResponseSpec => ({ description, schema });

/** Another tenant's subscriber is not found either: a tenant learns nothing of names it does not hold. */
const notFound = ok("Not found (or another tenant's)", ErrorBody);

function selectionOf(query: z.output<typeof DeadLetterQuery>): DlqSelection {
  return {
    eventIds: query.eventId ?? [],
    reasons: query.reason ?? [],
    statuses: query.status ?? [],
    ...(query.since === undefined ? {} : { sinceMs: Date.parse(query.since) }),
    ...(query.until === undefined ? {} : { untilMs: Date.parse(query.until) }),
    limit: query.limit,
  };
}

/**
 * The management API's routes: one table for dispatch and for the OpenAPI document. `document`
 * is read lazily, since the document is built from this very table.
 */
export function managementRoutes(service: ManagementService, document: () => unknown): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This API as an OpenAPI 3.1 document (no token needed)',
      params: NoParams,
      query: NoParams,
      public: true,
      responses: { 200: ok('The document', OpenApiDocument) },
      handle: async () => ({ status: 200, body: document() }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/subscribers',
      operationId: 'listSubscribers',
      summary: "The caller's subscribers by name, a page at a time, with state, lag and DLQ depth",
      params: NoParams,
      query: ListQuery,
      responses: { 200: ok('A page', SubscriberList) },
      handle: async ({ caller, query }) => ({
        status: 200,
        body: await service.listSubscribers(caller, query),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/subscribers/{name}',
      operationId: 'getSubscriber',
      summary: 'One subscriber (secrets never shown), with its ETag',
      params: NameParams,
      query: NoParams,
      responses: { 200: ok('The subscriber', SubscriberResource), 404: notFound },
      handle: async ({ caller, params }) => {
        const subscriber = await service.getSubscriber(caller, params.name);
        return { status: 200, body: subscriber, headers: { etag: subscriber.etag } };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/v1/subscribers/{name}',
      operationId: 'putSubscriber',
      summary:
        'Creates (201) or replaces (200) a subscriber from its definition; the same one again changes nothing',
      params: NameParams,
      query: NoParams,
      body: PutBody,
      documentedBody: PutBody.omit({ name: true }),
      bodyError: 'invalid_definition',
      responses: {
        200: ok('Replaced, or unchanged', PutAnswer),
        201: ok('Created', PutAnswer),
        403: ok('A tenant token naming another tenant', ErrorBody),
        409: ok('name_unavailable, tenant_changed, fleet_too_old, quota_exceeded', ErrorBody),
        412: ok('If-Match does not name the subscriber as it is', ErrorBody),
        422: ok('invalid_definition, forbidden_field', ErrorBody),
      },
      handle: async ({ caller, params, rawBody, ifMatch }) => {
        const result = await service.putSubscriber(caller, params.name, rawBody, ifMatch);
        return {
          status: result.action === 'created' ? 201 : 200,
          body: result,
          headers: { etag: result.subscriber.etag },
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/subscribers/{name}',
      operationId: 'deleteSubscriber',
      summary: "Deletes a subscriber (a tenant's delete also purges its group and topics and frees the name)",
      params: NameParams,
      query: DeleteQuery,
      responses: {
        200: ok('Deleted', DeleteAnswer),
        404: notFound,
        409: ok('group_in_use: deleted, the purge waits for its pushers; delete again', ErrorBody),
        412: ok('If-Match does not name the subscriber as it is', ErrorBody),
      },
      handle: async ({ caller, params, query, ifMatch }) => ({
        status: 200,
        body: await service.deleteSubscriber(caller, params.name, { purge: query.purge === 'true', ifMatch }),
      }),
    }),
    ...(['pause', 'resume'] as const).map((action) =>
      defineRoute({
        method: 'POST',
        path: `/v1/subscribers/{name}/${action}`,
        operationId: `${action}Subscriber`,
        summary:
          action === 'pause' ? 'Stops delivery, keeping the ledger' : 'Continues delivery from the ledger',
        params: NameParams,
        query: NoParams,
        body: PauseBody,
        responses: { 200: ok('Its state now', StateAnswer), 404: notFound },
        handle: async ({ caller, params, body }) => ({
          status: 200,
          body: await service.changeState(caller, params.name, {
            action,
            reason: action === 'pause' ? body?.reason : undefined,
          }),
        }),
      }),
    ),
    defineRoute({
      method: 'POST',
      path: '/v1/subscribers/{name}/rewind',
      operationId: 'rewindSubscriber',
      summary:
        'Delivers again from a time, earliest or offsets (ids unchanged); an active subscriber is paused for the move',
      params: NameParams,
      query: NoParams,
      body: RewindBody,
      responses: {
        200: ok('What moved (or, dry run, would move) per partition', RewindAnswer),
        400: ok(
          'invalid_request: a `to` that does not parse, is in the future or names no partition; invalid_json, body_too_deep, body_too_complex: a body that is not JSON, or nests or holds more than the API takes',
          ErrorBody,
        ),
        404: notFound,
        409: ok('group_in_use: its pushers did not leave the group in time; nothing moved', ErrorBody),
      },
      handle: async ({ caller, params, body }) => ({
        status: 200,
        body: await service.rewind(caller, params.name, body),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/subscribers/{name}/secret',
      operationId: 'getSecret',
      summary:
        'The managed secret in clear, and the previous ones still signing through their grace; each read is an audit record',
      params: NameParams,
      query: NoParams,
      responses: {
        200: ok('The secrets now signing', SecretAnswer),
        404: notFound,
        409: ok('not_managed: the secret is not one hookstream keeps', ErrorBody),
        503: ok(
          'secrets_key_unavailable; kafka_unavailable: the read could not be recorded in the audit trail (nothing shown)',
          ErrorBody,
        ),
      },
      handle: async ({ caller, params }) => ({
        status: 200,
        body: await service.revealSecret(caller, params.name),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/subscribers/{name}/secret/rotate',
      operationId: 'rotateSecret',
      summary: 'A new managed secret; the old one keeps signing for graceMs. Answers the secrets in clear',
      params: NameParams,
      query: NoParams,
      body: RotateBody,
      responses: {
        200: ok('The secrets now signing', SecretAnswer),
        404: notFound,
        409: ok(
          'not_managed: the secret is not one hookstream keeps; old_seal: its seal is of an older version (subscribers reseal first)',
          ErrorBody,
        ),
      },
      handle: async ({ caller, params, body }) => ({
        status: 200,
        body: await service.rotateSecret(caller, params.name, body?.graceMs),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/subscribers/{name}/dead-letters',
      operationId: 'listDeadLetters',
      summary: "A subscriber's dead letters the selection names, oldest first",
      params: NameParams,
      query: DeadLetterQuery,
      responses: { 200: ok('The dead letters', DeadLetterList), 404: notFound },
      handle: async ({ caller, params, query }) => ({
        status: 200,
        body: { items: await service.deadLetters(caller, params.name, selectionOf(query)) },
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/subscribers/{name}/dead-letters/replay',
      operationId: 'replayDeadLetters',
      summary: 'Starts a replay of the selected dead letters (or a dry run); GET /v1/jobs/{id} follows it',
      params: NameParams,
      query: NoParams,
      body: ReplayBody,
      responses: {
        202: ok('Started', Job),
        404: notFound,
        409: ok('replay_running', ErrorBody),
      },
      handle: async ({ caller, params, body }) => {
        const { dryRun, again, since, until, ...rest } = body;
        const selection: DlqSelection = {
          ...rest,
          ...(since === undefined ? {} : { sinceMs: Date.parse(since) }),
          ...(until === undefined ? {} : { untilMs: Date.parse(until) }),
        };
        const job = await service.replay(caller, params.name, { selection, dryRun, again });
        return { status: 202, body: job, headers: { location: `/v1/jobs/${job.id}` } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/jobs/{id}',
      operationId: 'getJob',
      summary: "A replay job's progress, and its summary once done",
      params: JobParams,
      query: NoParams,
      responses: { 200: ok('The job', Job), 404: notFound },
      handle: async ({ caller, params }) => ({ status: 200, body: await service.job(caller, params.id) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/events/{id}/ledger',
      operationId: 'getEventLedger',
      summary: "Where an event is for each of the caller's subscribers: counts per state, then the lines",
      params: EventParams,
      query: NoParams,
      responses: { 200: ok('The ledger', LedgerAnswer), 404: notFound },
      handle: async ({ caller, params }) => ({ status: 200, body: await service.ledger(caller, params.id) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/event-types',
      operationId: 'listEventTypes',
      summary: "The event catalogue with schemas, and which of the caller's subscribers take each type",
      params: NoParams,
      query: NoParams,
      responses: { 200: ok('The catalogue', EventTypeList) },
      handle: async ({ caller }) => ({ status: 200, body: { items: await service.eventTypes(caller) } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/audit',
      operationId: 'listAudit',
      summary: "The newest changes of the audit trail, oldest first (a tenant's own only)",
      params: NoParams,
      query: AuditQuery,
      responses: { 200: ok('Audit records', AuditList) },
      handle: async ({ caller, query }) => ({
        status: 200,
        body: { items: await service.audit(caller, query) },
      }),
    }),
    ...pullRoutes(service),
    ...messageRoutes(service),
  ];
}
