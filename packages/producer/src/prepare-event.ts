import { hash, randomUUID } from 'node:crypto';
import {
  type EventSchema,
  isNoticeType,
  MAX_TENANT_LENGTH,
  PublishRequest,
  RESERVED_DATA_FIELDS,
} from '@hookstream/contracts';
import type { z } from 'zod';
import { plainData } from './data-check.ts';
import { PublishError, type PublishErrorDetail } from './errors.ts';

/**
 * How far ahead of this host's clock `occurred_at` may be. Subscribers expire events by age
 * from `occurred_at`, so a time in the future (year 9999) would make an event never expire;
 * more than clock skew ahead is a bug or an attack, refused rather than silently clamped.
 */
export const MAX_OCCURRED_AT_SKEW_MS = 15 * 60_000;

/** An event that passed every check, ready to encode: nothing about it is decided later. */
export interface PreparedEvent {
  readonly id: string;
  readonly type: string;
  readonly key: string;
  /** RFC 3339 time it happened (CloudEvents `time`). */
  readonly time: string;
  /** Whose event it is (header `ce_tenant`); undefined when it has none. */
  readonly tenant: string | undefined;
  /** The data as the schema's validator normalised it (defaults filled in). */
  readonly data: unknown;
  readonly schema: EventSchema;
  /**
   * A digest of what the producer sent (type, data, tenant, and key and occurred_at as given,
   * not as defaulted), so a resubmission of the same event matches and a different event
   * reusing the id does not.
   */
  readonly fingerprint: string;
}

/**
 * Which topic a producer writes: `events` (every producer, the ingress's included), where the
 * types hookstream emits are refused, or `notices` (hookstream's own notice path), which takes
 * those types only.
 */
export type PublishChannel = 'events' | 'notices';

/**
 * Checks a publish request against the envelope rules and its type's schema, then fixes its
 * identity: the producer's id is kept, otherwise one is generated here, once. Throws a
 * PublishError (never writes anything). `tenant`: the tenant of a request that names none
 * (a tenant-bound token's); whoever passes it has checked that a named one is the same.
 */
export function prepareEvent(
  catalog: ReadonlyMap<string, EventSchema>,
  input: unknown,
  now: () => Date = () => new Date(),
  channel: PublishChannel = 'events',
  tenant?: string,
): PreparedEvent {
  const plain = plainRequest(input);
  const parsed =
    plain === undefined ? PublishRequest.safeParse(input) : { success: true as const, data: plain };
  if (!parsed.success) {
    // A type name that is a string but not a valid name cannot be a known type.
    const badTypeName =
      typeof input === 'object' &&
      input !== null &&
      typeof (input as { type?: unknown }).type === 'string' &&
      parsed.error.issues.some((i) => i.path[0] === 'type');
    const code = badTypeName ? 'UNKNOWN_TYPE' : 'INVALID_REQUEST';
    throw new PublishError(code, `invalid event: ${summary(parsed.error.issues)}`, {
      details: details(parsed.error.issues),
    });
  }
  const request = parsed.data;
  const schema = catalog.get(request.type);
  if (!schema) {
    throw new PublishError('UNKNOWN_TYPE', `unknown event type '${request.type}'`, {
      details: [{ path: 'type', message: `known types: ${[...catalog.keys()].join(', ')}` }],
    });
  }
  if ((channel === 'notices') !== isNoticeType(request.type)) {
    const message =
      channel === 'events'
        ? `'${request.type}' is reserved: only hookstream publishes it, on its notice channel`
        : `'${request.type}' is not a notice: the notice channel carries hookstream's own types only`;
    throw new PublishError(channel === 'events' ? 'RESERVED_TYPE' : 'INVALID_REQUEST', message, {
      details: [{ path: 'type', message }],
    });
  }
  const reserved = Object.keys(request.data).filter((k) =>
    (RESERVED_DATA_FIELDS as readonly string[]).includes(k),
  );
  if (reserved.length > 0) {
    throw new PublishError('RESERVED_FIELD', `data uses reserved field names: ${reserved.join(', ')}`, {
      details: reserved.map((k) => ({ path: `data.${k}`, message: 'reserved for the delivery envelope' })),
    });
  }
  const plainValue = plainData(schema, request.data);
  const data =
    plainValue === undefined
      ? schema.validator.safeParse(request.data)
      : { success: true as const, data: plainValue.value };
  if (!data.success) {
    const issues = data.error.issues.map((i) => ({ ...i, path: ['data', ...i.path] }));
    throw new PublishError('INVALID_DATA', `data does not match ${request.type}: ${summary(issues)}`, {
      details: details(issues),
    });
  }
  const at = now();
  if (request.occurred_at !== undefined) {
    const ahead = Date.parse(request.occurred_at) - at.getTime();
    if (!(ahead <= MAX_OCCURRED_AT_SKEW_MS)) {
      const message = `more than ${MAX_OCCURRED_AT_SKEW_MS / 60_000} minutes in the future`;
      throw new PublishError('INVALID_REQUEST', `invalid event: occurred_at: ${message}`, {
        details: [{ path: 'occurred_at', message }],
      });
    }
  }
  const id = request.id ?? randomUUID();
  const eventTenant = request.tenant ?? tenant;
  return {
    id,
    type: request.type,
    key: request.key ?? id,
    time: request.occurred_at ?? at.toISOString(),
    tenant: eventTenant,
    data: data.data,
    schema,
    fingerprint: hash('sha256', fingerprintText(schema, request, eventTenant, data.data)),
  };
}

/**
 * What the fingerprint digests: the request as given, with equal values giving equal text
 * whatever their key order. The validator's output lists a record's fields in schema order, so
 * for schemas without Avro maps (whose keys keep the producer's order) plain JSON already is
 * that text; only the others need sorted keys. The tenant is the event's (a bound token's when
 * the request named none: the same event either way); without one the text is what it was
 * before tenants, so nothing more is built per event.
 */
function fingerprintText(
  schema: EventSchema,
  request: PublishRequest,
  tenant: string | undefined,
  data: unknown,
): string {
  const key = request.key ?? null;
  const occurredAt = request.occurred_at ?? null;
  const fields =
    tenant === undefined
      ? { type: request.type, key, occurred_at: occurredAt }
      : { type: request.type, key, occurred_at: occurredAt, tenant };
  return hasMaps(schema) ? canonicalJson({ ...fields, data }) : JSON.stringify([fields, data]);
}

const mapsBySchema = new WeakMap<EventSchema, boolean>();
function hasMaps(schema: EventSchema): boolean {
  let maps = mapsBySchema.get(schema);
  if (maps === undefined) {
    maps = usesAvroMap(schema.avro);
    mapsBySchema.set(schema, maps);
  }
  return maps;
}

/** Whether an Avro schema has a map anywhere (named references point at types already seen). */
function usesAvroMap(avro: unknown): boolean {
  if (Array.isArray(avro)) return avro.some(usesAvroMap);
  if (typeof avro !== 'object' || avro === null) return false;
  const s = avro as { type?: unknown; fields?: unknown; items?: unknown };
  if (s.type === 'map') return true;
  if (typeof s.type === 'object' && usesAvroMap(s.type)) return true;
  if (Array.isArray(s.fields) && s.fields.some((f: { type?: unknown }) => usesAvroMap(f.type))) return true;
  return s.items !== undefined && usesAvroMap(s.items);
}

const TYPE_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const EVENT_ID = /^[A-Za-z0-9._:-]+$/;
const PLAIN_MEMBERS = new Set(['type', 'data', 'id', 'key', 'tenant']);

/**
 * The request as PublishRequest would parse it, when it plainly passes: a JSON object with only
 * the envelope's members, a valid type name, an object as data, a valid id, key and tenant, no
 * occurred_at. Anything else (every error, and occurred_at) goes to the zod schema, which
 * stays the one source of the rules and of their error messages; this only spares valid
 * requests its cost.
 */
export function plainRequest(input: unknown): PublishRequest | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  if (Object.getPrototypeOf(input) !== Object.prototype) return undefined;
  for (const name in input) if (!PLAIN_MEMBERS.has(name)) return undefined;
  const { type, data, id, key, tenant } = input as Record<string, unknown>;
  if (typeof type !== 'string' || !TYPE_NAME.test(type)) return undefined;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  if (Object.getPrototypeOf(data) !== Object.prototype || Object.hasOwn(data, '__proto__')) return undefined;
  if (id !== undefined && (typeof id !== 'string' || id.length > 200 || !EVENT_ID.test(id))) return undefined;
  if (key !== undefined && (typeof key !== 'string' || key.length < 1 || key.length > 1024)) return undefined;
  if (
    tenant !== undefined &&
    (typeof tenant !== 'string' || tenant.length > MAX_TENANT_LENGTH || !EVENT_ID.test(tenant))
  )
    return undefined;
  return {
    type,
    data: data as Record<string, unknown>,
    ...(id === undefined ? {} : { id }),
    ...(key === undefined ? {} : { key }),
    ...(tenant === undefined ? {} : { tenant }),
  };
}

/**
 * JSON with object keys sorted, so equal values give equal text whatever their key order
 * (members whose value is undefined are left out, as JSON.stringify does). One string built
 * in place: it runs for every event.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${text}]`;
  }
  const keys = Object.keys(value).sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
    first = false;
  }
  return `${text}}`;
}

type Issue = Pick<z.core.$ZodIssue, 'message'> & { readonly path: readonly PropertyKey[] };

function details(issues: readonly Issue[]): PublishErrorDetail[] {
  return issues.slice(0, 20).map((i) => ({ path: pathText(i.path), message: i.message }));
}

function summary(issues: readonly Issue[]): string {
  const [first] = issues;
  return first ? `${pathText(first.path) || '(root)'}: ${first.message}` : 'invalid';
}

function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}
