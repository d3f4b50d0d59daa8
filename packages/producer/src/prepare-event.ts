import { hash, randomUUID } from 'node:crypto';
import { type EventSchema, PublishRequest, RESERVED_DATA_FIELDS } from '@hookstream/contracts';
import type { z } from 'zod';
import { PublishError, type PublishErrorDetail } from './publish-error.ts';

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
  /** The data as the schema's validator normalised it (defaults filled in). */
  readonly data: unknown;
  readonly schema: EventSchema;
  /**
   * A digest of what the producer sent (type, data, and key and occurred_at as given, not as
   * defaulted), so a resubmission of the same event matches and a different event reusing
   * the id does not.
   */
  readonly fingerprint: string;
}

/**
 * Checks a publish request against the envelope rules and its type's schema, then fixes its
 * identity: the producer's id is kept, otherwise one is generated here, once. Throws a
 * PublishError (never writes anything).
 */
export function prepareEvent(
  catalog: ReadonlyMap<string, EventSchema>,
  input: unknown,
  now: () => Date = () => new Date(),
): PreparedEvent {
  const parsed = PublishRequest.safeParse(input);
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
  const reserved = Object.keys(request.data).filter((k) =>
    (RESERVED_DATA_FIELDS as readonly string[]).includes(k),
  );
  if (reserved.length > 0) {
    throw new PublishError('RESERVED_FIELD', `data uses reserved field names: ${reserved.join(', ')}`, {
      details: reserved.map((k) => ({ path: `data.${k}`, message: 'reserved for the delivery envelope' })),
    });
  }
  const data = schema.validator.safeParse(request.data);
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
  return {
    id,
    type: request.type,
    key: request.key ?? id,
    time: request.occurred_at ?? at.toISOString(),
    data: data.data,
    schema,
    fingerprint: hash(
      'sha256',
      canonicalJson({
        type: request.type,
        key: request.key ?? null,
        occurred_at: request.occurred_at ?? null,
        data: data.data,
      }),
    ),
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
