export { HttpError, httpErrorFor } from './errors.ts';
export type { IngressHttpOptions } from './ingress-http.ts';
export { IngressHttp } from './ingress-http.ts';
export { readBody } from './read-body.ts';
export { ReadinessCache } from './readiness-cache.ts';
export { TokenRateLimiter } from './token-rate-limiter.ts';
export type { TokenGrant } from './token-table.ts';
export { MIN_TOKEN_LENGTH, TokenTable } from './token-table.ts';
