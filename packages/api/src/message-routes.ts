import {
  ErrorBody,
  MessageDetail,
  MessageList,
  MessageParams,
  MessagePayload,
  MessageQuery,
  NameParams,
  ResendAnswer,
  ResendParams,
  SendExampleAnswer,
  SendExampleBody,
} from '@hookstream/api-schemas';
import type { ManagementService } from '@hookstream/management';
import { z } from 'zod';
import { defineRoute, type ResponseSpec, type Route } from './route.ts';

const ok = (description: string, schema: ResponseSpec['schema']): ResponseSpec => ({ description, schema });
const notFound = ok("Not found (or another tenant's)", ErrorBody);
const noIndex = ok('messages_unavailable: this API process keeps no message index', ErrorBody);

/** `GET /v1/messages/{eventId}`: the operator names the tenant; a tenant's token reads its own. */
const MessageGetQuery = MessageQuery.pick({ tenant: true, subscriber: true });

/**
 * The customer portal's messages and its actions on one message or endpoint (docs/api.md,
 * "Messages"): the same operations the portal's pages call.
 */
export function messageRoutes(service: ManagementService): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/messages',
      operationId: 'listMessages',
      summary: "A page of one tenant's messages, newest first, with each endpoint's state",
      params: z.object({}),
      query: MessageQuery,
      responses: {
        200: ok('A page; nextCursor names the next (null: the last)', MessageList),
        403: ok('forbidden_tenant: a tenant token naming another tenant', ErrorBody),
        503: noIndex,
      },
      handle: async ({ caller, query }) => {
        const { subscriber, type, ...rest } = query;
        return {
          status: 200,
          body: await service.listMessages(caller, { ...rest, subscribers: subscriber, types: type }),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/messages/{eventId}',
      operationId: 'getMessage',
      summary: "One message with every attempt of the caller's endpoints: time, status, latency, excerpt",
      params: MessageParams,
      query: MessageGetQuery,
      responses: {
        200: ok('The message', MessageDetail),
        403: ok('forbidden_tenant: a tenant token naming another tenant', ErrorBody),
        404: notFound,
        503: noIndex,
      },
      handle: async ({ caller, params, query }) => ({
        status: 200,
        body: await service.getMessage(caller, params.eventId, {
          tenant: query.tenant,
          subscribers: query.subscriber,
        }),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/messages/{eventId}/payload',
      operationId: 'getMessagePayload',
      summary:
        "A message's data as the operator lets it be shown: nothing, its size and SHA-256, or the data (hookstream api --message-payloads)",
      params: MessageParams,
      query: MessageGetQuery,
      responses: {
        200: ok('As much of the data as the mode shows', MessagePayload),
        403: ok('forbidden_tenant: a tenant token naming another tenant', ErrorBody),
        404: ok("Not found, another tenant's, or past the events topic's retention", ErrorBody),
        503: ok('messages_unavailable, or payload_unavailable (the registry, for full data)', ErrorBody),
      },
      handle: async ({ caller, params, query }) => ({
        status: 200,
        body: await service.messagePayload(caller, params.eventId, {
          tenant: query.tenant,
          subscribers: query.subscriber,
        }),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/messages/{eventId}/subscribers/{name}/resend',
      operationId: 'resendMessage',
      summary:
        "Sends one message again to one endpoint: its own record (same id) on the endpoint's retry tier 1, a fresh attempt budget",
      params: ResendParams,
      query: z.object({}),
      responses: {
        200: ok('Sent: where the copy was written', ResendAnswer),
        404: notFound,
        409: ok('no_retry_tier: the subscriber has not started yet; nothing was written', ErrorBody),
        422: ok('type_not_taken: the subscriber does not take the event type', ErrorBody),
      },
      handle: async ({ caller, params }) => ({
        status: 200,
        body: await service.resendMessage(caller, { eventId: params.eventId, subscriber: params.name }),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/subscribers/{name}/send-example',
      operationId: 'sendExample',
      summary:
        'Sends an example event of a type, made from its schema, to this endpoint only (its retry tier 1, never the events topic)',
      params: NameParams,
      query: z.object({}),
      body: SendExampleBody,
      responses: {
        200: ok('Sent: the new event id', SendExampleAnswer),
        404: notFound,
        409: ok('no_retry_tier: the subscriber has not started yet; nothing was written', ErrorBody),
        422: ok('invalid_body: an unknown or notice type; type_not_taken', ErrorBody),
        503: ok('examples_unavailable: this API process has no schema registry', ErrorBody),
      },
      handle: async ({ caller, params, body }) => ({
        status: 200,
        body: await service.sendExample(caller, { subscriber: params.name, type: body.type }),
      }),
    }),
  ];
}
