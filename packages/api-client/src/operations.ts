/**
 * The routes the client calls, by operationId: the client's method of the same name sends this
 * method and path. A test holds it to the API's route table both ways (every route has its
 * entry and method, every entry is a route), so a new route without a client method fails it.
 */
export const API_OPERATIONS = {
  getOpenApi: { method: 'GET', path: '/v1/openapi.json' },
  listSubscribers: { method: 'GET', path: '/v1/subscribers' },
  getSubscriber: { method: 'GET', path: '/v1/subscribers/{name}' },
  putSubscriber: { method: 'PUT', path: '/v1/subscribers/{name}' },
  deleteSubscriber: { method: 'DELETE', path: '/v1/subscribers/{name}' },
  pauseSubscriber: { method: 'POST', path: '/v1/subscribers/{name}/pause' },
  resumeSubscriber: { method: 'POST', path: '/v1/subscribers/{name}/resume' },
  rewindSubscriber: { method: 'POST', path: '/v1/subscribers/{name}/rewind' },
  getSecret: { method: 'GET', path: '/v1/subscribers/{name}/secret' },
  rotateSecret: { method: 'POST', path: '/v1/subscribers/{name}/secret/rotate' },
  listDeadLetters: { method: 'GET', path: '/v1/subscribers/{name}/dead-letters' },
  replayDeadLetters: { method: 'POST', path: '/v1/subscribers/{name}/dead-letters/replay' },
  getJob: { method: 'GET', path: '/v1/jobs/{id}' },
  getEventLedger: { method: 'GET', path: '/v1/events/{id}/ledger' },
  listEventTypes: { method: 'GET', path: '/v1/event-types' },
  listAudit: { method: 'GET', path: '/v1/audit' },
  leaseEvents: { method: 'GET', path: '/v1/subscribers/{name}/events' },
  ackEvents: { method: 'POST', path: '/v1/subscribers/{name}/ack' },
  nackEvents: { method: 'POST', path: '/v1/subscribers/{name}/nack' },
  listMessages: { method: 'GET', path: '/v1/messages' },
  getMessage: { method: 'GET', path: '/v1/messages/{eventId}' },
  getMessagePayload: { method: 'GET', path: '/v1/messages/{eventId}/payload' },
  resendMessage: { method: 'POST', path: '/v1/messages/{eventId}/subscribers/{name}/resend' },
  sendExample: { method: 'POST', path: '/v1/subscribers/{name}/send-example' },
  createPortalLink: { method: 'POST', path: '/v1/portal-links' },
  listPortalLinks: { method: 'GET', path: '/v1/portal-links' },
  revokePortalLink: { method: 'DELETE', path: '/v1/portal-links/{id}' },
  eraseTenantMessages: { method: 'DELETE', path: '/v1/tenants/{tenant}/messages' },
} as const satisfies Record<
  string,
  { readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE'; readonly path: string }
>;

export type ApiOperation = keyof typeof API_OPERATIONS;
