import { z } from 'zod';
import {
  CLIENT_KEY_ENV_PREFIX,
  envReference,
  HEADER_ENV_PREFIX,
  OAUTH_ENV_PREFIX,
  SECRET_ENV_PREFIX,
} from './env-references.ts';
import { EventTypeName, TenantId } from './envelope.ts';
import { EventFilter } from './event-filter.ts';
import { EventSelection, eventTenantOf } from './event-selection.ts';
import { SubscriberName } from './topics.ts';

/**
 * Where the signing secret lives; the definition names it, never holds it. A variable must be
 * a `HOOKSTREAM_SECRET_…` one (see env-references.ts).
 */
export const SecretSource = z.union([
  envReference(SECRET_ENV_PREFIX),
  z.strictObject({ file: z.string().min(1) }),
]);
export type SecretSource = z.infer<typeof SecretSource>;

/** Headers the pusher sets itself; a definition may not override them. */
export const PUSHER_OWNED_HEADERS = [
  'content-type',
  'content-length',
  'host',
  'idempotency-key',
  'traceparent',
  'tracestate',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
] as const;

/**
 * Hop-by-hop and framing headers: they describe one connection or the message's framing, so a
 * definition setting them could smuggle a second request or break the one it sends.
 */
export const FORBIDDEN_HEADERS = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
] as const;

const HeaderName = z
  .string()
  .max(256)
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP header name')
  .refine((h) => !(PUSHER_OWNED_HEADERS as readonly string[]).includes(h.toLowerCase()), {
    message: 'is set by the pusher and cannot be overridden',
  })
  .refine((h) => !(FORBIDDEN_HEADERS as readonly string[]).includes(h.toLowerCase()), {
    message: 'is a hop-by-hop or framing header and cannot be set',
  });

/** CR, LF and NUL would end the header line (request splitting); other controls are no text. */
export const HEADER_VALUE_PATTERN = /^[\t\x20-\x7e\x80-\uffff]*$/;

/** `{ "managed": true }` as a header value: the value is sealed in the catalog record (catalog only). */
export const ManagedHeaderValue = z.strictObject({ managed: z.literal(true) });
export type ManagedHeaderValue = z.infer<typeof ManagedHeaderValue>;

/**
 * A header value: text; `{ "env": "HOOKSTREAM_HEADER_…" }`, read from the pusher's environment
 * when the subscriber starts, so credentials need not sit in clear in definition files; or
 * `{ "managed": true }`, a credential sealed in the catalog under the secrets key.
 */
export const HeaderValue = z.union([
  z.string().max(8192).regex(HEADER_VALUE_PATTERN, 'no CR, LF, NUL or other control characters'),
  envReference(HEADER_ENV_PREFIX),
  ManagedHeaderValue,
]);
export type HeaderValue = z.infer<typeof HeaderValue>;

/** The outbound credentials a definition may have sealed in its record, by their field's path. */
export const CREDENTIAL_NAMES = ['oauth2.clientSecret', 'clientCertificate.key'] as const;
export type CredentialName = (typeof CREDENTIAL_NAMES)[number];

/** The definition's `{ "managed": true }` credentials (`oauth2.clientSecret`, `clientCertificate.key`). */
export function managedCredentialNames(
  definition: Partial<Pick<SubscriberDefinition, 'oauth2' | 'clientCertificate'>>,
): CredentialName[] {
  const names: CredentialName[] = [];
  if (definition.oauth2 !== undefined && 'managed' in definition.oauth2.clientSecret)
    names.push('oauth2.clientSecret');
  if (definition.clientCertificate !== undefined && 'managed' in definition.clientCertificate.key)
    names.push('clientCertificate.key');
  return names;
}

/** The names of a definition's managed headers, as the definition spells them. */
export function managedHeaderNames(definition: Pick<SubscriberDefinition, 'headers'>): string[] {
  return Object.entries(definition.headers)
    .filter(([, value]) => typeof value === 'object' && 'managed' in value)
    .map(([name]) => name);
}

/** Text for a form field or header: no control characters (CR, LF, NUL would split a request). */
const PlainText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x20-\x7e\x80-\uffff]*$/, 'printable text, no control characters');

/**
 * OAuth2 client credentials (RFC 6749 4.4): the pusher fetches a token from `tokenUrl`, client
 * authenticated with HTTP Basic, and sends it as `Authorization: Bearer …` on every delivery.
 * The token URL is held to the rules of `url` (`allowPrivateNetwork`, `allowInsecureHttp`).
 * (Record version 7.)
 */
export const OAuth2Settings = z.strictObject({
  tokenUrl: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }),
  clientId: PlainText(1024),
  /**
   * A `HOOKSTREAM_OAUTH_…` variable of the pusher's environment (env-references.ts), or
   * `{ "managed": true }`: sealed in the catalog record (`subscribers credential set`).
   */
  clientSecret: z.union([envReference(OAUTH_ENV_PREFIX), z.strictObject({ managed: z.literal(true) })]),
  /** Space-separated scopes, sent as `scope`. */
  scope: PlainText(2048).optional(),
  /** Sent as `audience` (Auth0 and others need it to pick the API the token is for). */
  audience: PlainText(2048).optional(),
});
export type OAuth2Settings = z.infer<typeof OAuth2Settings>;

/** A PEM certificate chain: public, so it may sit in the definition. */
const CertificatePem = z
  .string()
  .max(65_536)
  .regex(/-----BEGIN CERTIFICATE-----/, { message: 'a PEM certificate (-----BEGIN CERTIFICATE-----)' });

/**
 * The client certificate the pusher presents in the TLS handshake with `url` (mTLS). Its private
 * key is read from the pusher's environment, a `HOOKSTREAM_CLIENT_KEY_…` variable holding the
 * PEM, or sealed in the catalog record. (Record version 7.)
 */
export const ClientCertificate = z.strictObject({
  cert: CertificatePem,
  /** A `HOOKSTREAM_CLIENT_KEY_…` variable holding the PEM, or `{ "managed": true }` (sealed). */
  key: z.union([envReference(CLIENT_KEY_ENV_PREFIX), z.strictObject({ managed: z.literal(true) })]),
});
export type ClientCertificate = z.infer<typeof ClientCertificate>;

/** An RFC 6901 JSON pointer that names a field of the data (not the whole document). */
const DATA_POINTER = /^(\/([^~/]|~[01])*)+$/;

/**
 * Several events in one signed request (`{ "events": [ … ] }`). A batch goes out when it holds
 * `maxEvents`, when one more event would take it past `maxBytes`, or `maxWaitMs` after its first
 * event joined. It never mixes two values of `groupBy`: `tenant` (the default: the trust
 * boundary), the record's partition `key`, or a JSON pointer into the data (events without that
 * field form one group). (Record version 8.)
 */
export const BatchSettings = z.strictObject({
  maxEvents: z.number().int().min(1).max(1000).default(100),
  maxBytes: z
    .number()
    .int()
    .min(1024)
    .max(4 * 1024 * 1024)
    .default(1024 * 1024),
  maxWaitMs: z.number().int().min(0).max(60_000).default(1000),
  groupBy: z
    .union([
      z.literal('tenant'),
      z.literal('key'),
      z.string().max(256).regex(DATA_POINTER, 'a JSON pointer into the data ("/a/b")'),
    ])
    .default('tenant'),
});
export type BatchSettings = z.infer<typeof BatchSettings>;

/**
 * The longest retry delay a definition may ask for. With jitter (at most +100 %) a record then
 * waits at most twice this, well inside what a Node timer can hold (2^31 - 1 ms, 24.8 days;
 * past it a timer fires at once).
 */
export const MAX_RETRY_DELAY_MS = 7 * 86_400_000;

export const RetrySettings = z.strictObject({
  /** Delay before attempt n+1 after attempt n failed; the last entry repeats (the cap). */
  delaysMs: z
    .array(z.number().int().positive().max(MAX_RETRY_DELAY_MS))
    .min(1)
    .max(20)
    .default([1_000, 10_000, 60_000, 600_000, 3_600_000]),
  /** Attempts in total, the first included; reaching it dead-letters the event. */
  maxAttempts: z.number().int().min(1).max(100).default(6),
  /** An event older than this (from occurred_at) is dead-lettered as expired. */
  maxAgeMs: z.number().int().positive().default(86_400_000),
  /** Extra random delay, as a fraction of the base delay (0 = none, 0.2 = up to +20 %). */
  jitter: z.number().min(0).max(1).default(0.2),
});
export type RetrySettings = z.infer<typeof RetrySettings>;

export const RateSettings = z.strictObject({
  /** Requests per second to the destination, across every pusher instance of the subscriber. */
  perSecond: z.number().positive().max(100_000),
  /** Extra requests allowed at once after a quiet period, on top of perSecond. */
  burst: z.number().int().min(0).max(10_000).default(0),
});
export type RateSettings = z.infer<typeof RateSettings>;

/**
 * The destination's circuit breaker. It opens after `consecutiveFailures` retryable failures in
 * a row, or when at least `minAttempts` attempts in the last `windowMs` failed at `failureRatio`
 * or more. While open, records wait in place (no attempt spent, the age ceiling still applies)
 * and one pending record goes out as a probe every `probeIntervalMs`; its success closes it.
 */
export const BreakerSettings = z.strictObject({
  /** false: never opens (every record walks its retry tiers, as before the breaker existed). */
  enabled: z.boolean().default(true),
  consecutiveFailures: z.number().int().min(1).max(10_000).default(10),
  failureRatio: z.number().min(0.05).max(1).default(0.5),
  windowMs: z.number().int().min(1000).max(3_600_000).default(60_000),
  minAttempts: z.number().int().min(1).max(100_000).default(20),
  /** At least 100 ms so a probe is never a flood; at most 10 min so recovery is seen in time. */
  probeIntervalMs: z.number().int().min(100).max(600_000).default(5000),
});
export type BreakerSettings = z.infer<typeof BreakerSettings>;

/** The breaker of a definition without a `breaker` object. */
export const DEFAULT_BREAKER: BreakerSettings = BreakerSettings.parse({});

/** How long an endpoint may fail without a success before hookstream disables it (Svix: 5 days). */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 86_400_000;

/** Where a brand-new group begins; an existing group always resumes from its ledger. */
export const StartPosition = z.union([
  z.literal('earliest'),
  z.literal('latest'),
  z.iso.datetime({ offset: true }),
]);
export type StartPosition = z.infer<typeof StartPosition>;

/** One subscriber, as an operator writes it in a JSON file. */
export const SubscriberDefinition = z.strictObject({
  name: SubscriberName,
  /**
   * `pull`: no endpoint; its events are leased over the management API and acknowledged there
   * (docs/api.md), and the fields that only push uses are refused. Absent: `push`. (Record
   * version 9.)
   */
  mode: z.enum(['push', 'pull']).optional(),
  /** The endpoint; required for push, refused for pull. */
  url: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
  eventTypes: z
    .array(z.union([z.literal('*'), EventTypeName]))
    .min(1)
    .default(['*']),
  rate: RateSettings.default({ perSecond: 50, burst: 0 }),
  /** Requests in flight to the destination at once. */
  concurrency: z.number().int().min(1).max(1_000).default(10),
  timeoutMs: z.number().int().min(100).max(300_000).default(10_000),
  retry: RetrySettings.default(RetrySettings.parse({})),
  start: StartPosition.default('latest'),
  /**
   * `key`: at most one delivery in flight per partition key, so a key's events start in order (a
   * retried one goes to a tier, and later events of its key go on). `strict`: a failing event is
   * retried in place on the tier schedule, holding back only the later events of its key, and
   * dead-lettered at its ceilings or past `maxHoldMs`; then its key goes on. (`strict`: record
   * version 7.)
   */
  ordering: z.enum(['none', 'key', 'strict']).default('none'),
  /**
   * With `ordering: "strict"`: how long a failing event may hold its key back before it is
   * dead-lettered (absent: 15 min). At least a second, at most a day. (Record version 7.)
   */
  maxHoldMs: z.number().int().min(1000).max(86_400_000).optional(),
  secret: SecretSource.optional(),
  headers: z.record(HeaderName, HeaderValue).default({}),
  /** Off by default so a definition cannot aim the pusher at internal services. */
  allowPrivateNetwork: z.boolean().default(false),
  /** Plain http: to a public host sends the signed body and headers in clear; off unless true. */
  allowInsecureHttp: z.boolean().optional(),
  /** Partition keys go to traces as a digest; true puts them there in clear. */
  keysInTraces: z.boolean().optional(),
  /** The destination's circuit breaker; absent: on, with DEFAULT_BREAKER's settings. */
  breaker: BreakerSettings.optional(),
  /**
   * Failure without a single success for this long disables the subscriber (absent: 5 days).
   * At least a minute, so a short outage never disables; at most 30 days.
   */
  disableAfterMs: z
    .number()
    .int()
    .min(60_000)
    .max(30 * 86_400_000)
    .optional(),
  /**
   * A required consumer: every event it takes must reach it. `hookstream reconcile` holds it to
   * that, and the oldest pending required delivery is a gauge to page on. (Record version 3.)
   */
  required: z.boolean().optional(),
  /**
   * From when the obligation runs; events before it are not owed. `subscribers apply` fills in
   * the time it first became required. Only with `required: true`. (Record version 3.)
   */
  requiredFrom: z.iso.datetime({ offset: true }).optional(),
  /**
   * `subscriber.retention_at_risk` goes out when the oldest record the subscriber still owes is
   * closer than this to the topic's retention (absent: 24 h). At least a minute, at most a year.
   * (Record version 3.)
   */
  retentionWarningMs: z
    .number()
    .int()
    .min(60_000)
    .max(365 * 86_400_000)
    .optional(),
  /**
   * The only tenant whose events it receives (the `ce_tenant` header); events without a tenant
   * never reach it. Absent: every event, with a tenant or without. It cannot change: a subscriber
   * moves to another tenant by being deleted and created again. (Record version 4.)
   */
  tenant: TenantId.optional(),
  /**
   * `tenant`: while the destination's rate limit holds events back, every tenant with events
   * waiting gets an equal share of it, instead of one tenant's burst going first because it
   * arrived first (events without a tenant share as one more tenant). Only for a subscriber
   * without `tenant`, which receives many tenants' events. (Record version 5.)
   */
  fairness: z.literal('tenant').optional(),
  /**
   * Which events of its types and tenant it receives, on their attributes and data
   * (`event-filter.ts`); the others are settled as filtered. Absent: all of them. (Record version 6.)
   */
  filter: EventFilter.optional(),
  /** OAuth2 client credentials: a bearer token on every delivery (Record version 7.) */
  oauth2: OAuth2Settings.optional(),
  /** A TLS client certificate presented to `url` (mTLS). (Record version 7.) */
  clientCertificate: ClientCertificate.optional(),
  /** Several events per request, grouped so a batch never crosses a boundary. (Record version 8.) */
  batch: BatchSettings.optional(),
});
export type SubscriberDefinition = z.infer<typeof SubscriberDefinition>;

/** How long a failing event may hold its key back under `ordering: "strict"` when a definition sets none. */
export const DEFAULT_MAX_HOLD_MS = 15 * 60_000;

/** The retention warning threshold when a definition sets none. */
export const DEFAULT_RETENTION_WARNING_MS = 86_400_000;

/**
 * Whether a definition's `eventTypes` take events of this type ('*' takes all). One statement of
 * the rule, so tools that judge a subscriber by its definition (the ledger) agree with the pusher.
 */
export function acceptsEventType(
  definition: Pick<SubscriberDefinition, 'eventTypes'>,
  type: string,
): boolean {
  return EventSelection.of(definition).takesType(type);
}

/**
 * Whether a subscriber of this definition receives an event whose `ce_tenant` header is `tenant`
 * (undefined: the event has none). One statement of the rule for the pusher and the tools.
 */
export function acceptsTenant(
  definition: Pick<SubscriberDefinition, 'tenant'>,
  tenant: string | undefined,
): boolean {
  return EventSelection.of(definition).takesTenant(tenant);
}

/** The tenant of a record with these headers (its `ce_tenant`), or undefined. */
export function tenantOf(headers: Readonly<Record<string, string>>): string | undefined {
  return eventTenantOf(headers);
}

/** Whether a definition is a pull subscriber's (no endpoint; leased over the API). */
export function isPullDefinition(definition: Pick<SubscriberDefinition, 'mode'>): boolean {
  return definition.mode === 'pull';
}

/**
 * A push definition's endpoint. Throws for a pull definition: only code that delivers by push
 * asks, and a pull subscriber never reaches it.
 */
export function endpointOf(definition: Pick<SubscriberDefinition, 'name' | 'url'>): string {
  if (definition.url === undefined) throw new Error(`${definition.name}: a pull subscriber has no url`);
  return definition.url;
}

/**
 * The origin a definition's seals are bound to: its endpoint's; empty for a pull subscriber,
 * which has no endpoint (and no seals: its definition may not hold a secret, managed headers or
 * credentials).
 */
export function sealOriginOf(definition: Pick<SubscriberDefinition, 'url'>): string {
  return definition.url === undefined ? '' : new URL(definition.url).origin;
}

/**
 * Fields only push uses, which a pull definition may not set. The schema fills some in with a
 * default it cannot tell from a value written, so those are refused when they differ from it.
 */
const PUSH_ONLY: readonly (keyof SubscriberDefinition)[] = [
  'url',
  'secret',
  'batch',
  'oauth2',
  'clientCertificate',
  'breaker',
  'fairness',
  'disableAfterMs',
  'allowInsecureHttp',
  'maxHoldMs',
];

function pushOnlyFieldOf(
  definition: Omit<Partial<SubscriberDefinition>, 'secret'> & { readonly secret?: unknown },
): string | null {
  const set = PUSH_ONLY.find((field) => (definition as Record<string, unknown>)[field] !== undefined);
  if (set !== undefined) return set;
  const { rate, concurrency, timeoutMs, headers, allowPrivateNetwork } = definition;
  if (rate !== undefined && (rate.perSecond !== 50 || rate.burst !== 0)) return 'rate';
  if (concurrency !== undefined && concurrency !== 10) return 'concurrency';
  if (timeoutMs !== undefined && timeoutMs !== 10_000) return 'timeoutMs';
  if (headers !== undefined && Object.keys(headers).length > 0) return 'headers';
  if (allowPrivateNetwork === true) return 'allowPrivateNetwork';
  return null;
}

/** Rules across fields of a definition, which its schema alone cannot say; null when it keeps them. */
export function definitionRuleBroken(
  definition: Pick<
    SubscriberDefinition,
    'required' | 'requiredFrom' | 'tenant' | 'fairness' | 'ordering' | 'maxHoldMs'
  > &
    Omit<Partial<SubscriberDefinition>, 'secret'> & { readonly secret?: unknown },
): { path: string; message: string } | null {
  if (definition.mode === 'pull') {
    const field = pushOnlyFieldOf(definition);
    if (field !== null) return { path: field, message: 'only for push subscribers, not with "mode": "pull"' };
    if (definition.ordering === 'strict')
      return {
        path: 'ordering',
        message: '"strict" is for push only (a pull subscriber holds no retries in place)',
      };
  } else if (definition.url === undefined)
    return { path: 'url', message: 'required (an http(s) URL), unless "mode" is "pull"' };
  if (definition.maxHoldMs !== undefined && definition.ordering !== 'strict')
    return { path: 'maxHoldMs', message: 'only with "ordering": "strict"' };
  // One event of a key is in flight at a time under key order: every batch would carry one.
  if (definition.batch?.groupBy === 'key' && definition.ordering !== 'none')
    return {
      path: 'batch.groupBy',
      message: `"key" carries one event per batch with "ordering": "${definition.ordering}" (a key has one event in flight); group by "tenant" or a data field`,
    };
  if (
    definition.oauth2 !== undefined &&
    Object.keys(definition.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')
  )
    return { path: 'headers', message: 'no "Authorization" header with "oauth2" (the pusher sets it)' };
  if (
    definition.clientCertificate !== undefined &&
    definition.url !== undefined &&
    new URL(definition.url).protocol !== 'https:'
  )
    return { path: 'clientCertificate', message: 'only with an https: url' };
  if (definition.fairness !== undefined && definition.tenant !== undefined)
    return {
      path: 'fairness',
      message: 'only without "tenant" (a tenant\'s subscriber receives one tenant)',
    };
  if (definition.requiredFrom !== undefined && definition.required !== true)
    return { path: 'requiredFrom', message: 'only with "required": true' };
  return null;
}

/**
 * Validates a parsed JSON document; the error names the offending field, e.g.
 * `rate.perSecond: Too small: expected number to be >0` or `unknown field "colour"`.
 */
export function parseSubscriberDefinition(
  input: unknown,
): { ok: true; value: SubscriberDefinition } | { ok: false; error: string } {
  const parsed = SubscriberDefinition.safeParse(input);
  if (parsed.success) {
    const broken = definitionRuleBroken(parsed.data);
    if (broken === null) return { ok: true, value: parsed.data };
    return { ok: false, error: `${broken.path}: ${broken.message}` };
  }
  const messages = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const where = path === '' ? '' : ` in ${path}`;
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}${where}`;
    }
    return `${path === '' ? '(definition)' : path}: ${issue.message}`;
  });
  return { ok: false, error: messages.join('; ') };
}
