export type { ApiServerOptions } from './api-server.ts';
export { ApiServer, DEFAULT_API_RATE, DEFAULT_BODY_LIMIT } from './api-server.ts';
export { ApiTokens } from './api-tokens.ts';
export { answerSchema, openApiDocument } from './openapi.ts';
export type { RawRequest, ResponseSpec, Route, RouteAnswer } from './route.ts';
export { defineRoute } from './route.ts';
export { Router } from './router.ts';
export { managementRoutes } from './routes.ts';
// The request and answer schemas, for the typed client (@hookstream/api-client): it validates
// requests and parses answers with the very schemas the server and its document use.
export {
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
  SubscriberItem,
  SubscriberList,
  SubscriberResource,
} from './schemas.ts';
