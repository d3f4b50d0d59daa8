export type { ApiServerOptions } from './api-server.ts';
export { ApiServer, DEFAULT_API_RATE, DEFAULT_BODY_LIMIT } from './api-server.ts';
export { ApiTokens } from './api-tokens.ts';
export { MAX_BODY_DEPTH, MAX_BODY_VALUES } from './body-limits.ts';
export { answerSchema, openApiDocument } from './openapi.ts';
export type { PortalLinksPort } from './portal-link-routes.ts';
export {
  PortalLinkList,
  PortalLinkListQuery,
  PortalLinkParams,
  portalLinkRoutes,
  RevokedPortalLink,
} from './portal-link-routes.ts';
export type { RawRequest, ResponseSpec, Route, RouteAnswer } from './route.ts';
export { defineRoute } from './route.ts';
export { Router } from './router.ts';
export { managementRoutes } from './routes.ts';
