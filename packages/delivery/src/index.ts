export type { DestinationPolicy } from './address-guard.ts';
export {
  assertDestinationAllowed,
  assertPublicDestination,
  isPrivateAddress,
  publicOnlyLookup,
} from './address-guard.ts';
export type {
  Admission,
  BreakerPhase,
  BreakerPolicyOptions,
  BreakerState,
  BreakerTransition,
  DisableCause,
  HealthSignal,
  SharedOpen,
  TransitionCause,
  WindowBucket,
} from './breaker-policy.ts';
export { BREAKER_POLICY_VERSION, BreakerPolicy, CLOSED_BREAKER, healthSignal } from './breaker-policy.ts';
export type { BreakerStore } from './breaker-store.ts';
export type {
  BreakerAdmission,
  DestinationBreakerOptions,
  FleetBreakerChange,
} from './destination-breaker.ts';
export { DestinationBreaker } from './destination-breaker.ts';
export type { InFlightCap, LimiterOptions } from './destination-limiter.ts';
export { createInFlightCap, DestinationLimiter, limiterMode } from './destination-limiter.ts';
export type { EgressProxy } from './egress-proxy.ts';
export { bypassesProxy, EGRESS_PROXY_CODE_PREFIX, parseEgressProxy, proxyConnector } from './egress-proxy.ts';
export type { DeliveryErrorCode } from './errors.ts';
export { DeliveryError } from './errors.ts';
export type { DeliveryTrail, LostRange, TraceHeaders } from './evidence.ts';
export { deadLetterHeaders, lostRangeHeaders, lostRangeKey, retryHeaders } from './evidence.ts';
export {
  credentialForms,
  MIN_CUT_PREFIX_CHARS,
  REDACTED,
  redactCredentials,
  signingSecretForms,
} from './excerpt-redaction.ts';
export type { AttemptReport, HttpClientOptions, OutgoingDelivery } from './http-client.ts';
export { HttpClient } from './http-client.ts';
export type { ClientCredentialsRequest, TokenFailureCode } from './oauth2-token.ts';
export { fetchClientCredentialsToken, OAUTH2_TOKEN_CODE_PREFIX } from './oauth2-token.ts';
export type { ClientTlsIdentity, PoolKey, PoolLease } from './origin-pools.ts';
export { OriginPools } from './origin-pools.ts';
export type { DeliveryMeta } from './payload.ts';
export { BATCH_ENVELOPE_BYTES, batchBody, buildBody, deliveryIdOf, newBatchId } from './payload.ts';
export type {
  AttemptResult,
  Classification,
  Decision,
  DecisionInput,
  OutcomeClass,
  OutcomeReason,
} from './policy.ts';
export {
  backoffDelayMs,
  checkAge,
  classify,
  classifyLeaseEnd,
  decide,
  POLICY_VERSION,
  routeTier,
} from './policy.ts';
export { RedisBreakerStore } from './redis-breaker-store.ts';
export { RedisConnections } from './redis-connections.ts';
export { boundedPauseUntil, MAX_RETRY_AFTER_MS, parseRetryAfter } from './retry-after.ts';
export type { SharedSpacing, SharedWindowSettings } from './shared-window.ts';
export {
  SHARED_WINDOW_MARGIN_MS,
  SharedWindow,
  sharedWindowRate,
  sharedWindowSettings,
} from './shared-window.ts';
export { parseSigningSecret, signPayload, signPayloadWithKeys } from './signing.ts';
export type { TurnsLimiter } from './tenant-turns.ts';
export { TenantTurns, turnsAhead } from './tenant-turns.ts';
export type { BearerGrant, BearerTokens, TokenCacheOptions } from './token-cache.ts';
export {
  DEFAULT_TOKEN_LIFETIME_S,
  MAX_REFRESH_MARGIN_MS,
  MAX_TOKEN_LIFETIME_S,
  TokenCache,
} from './token-cache.ts';
