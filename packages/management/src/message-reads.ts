import type { MessageList, MessageState } from '@hookstream/api-schemas';
import type { RecordLocation } from '@hookstream/contracts';
import type { CatalogSnapshot } from '@hookstream/subscribers';
import { type Caller, tenantOf } from './caller.ts';
import { ManagementError } from './errors.ts';
import type { ManagementPorts } from './management-ports.ts';
import type { MessageDetail, MessageIndex } from './message-index.ts';

/** A messages list as a caller asks for it (the API's query, lists as arrays). */
export interface MessageListAsk {
  /** The operator names the tenant; a tenant's caller gets its own (another: forbidden_tenant). */
  readonly tenant?: string | undefined;
  readonly subscribers?: readonly string[] | undefined;
  readonly types?: readonly string[] | undefined;
  readonly state?: MessageState | undefined;
  readonly eventId?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/**
 * A page of one tenant's messages, newest first. A tenant's caller sees only its own endpoints'
 * steps: a subscriber of no tenant (the operator's, taking every tenant's events) delivers its
 * events too, and its name and answers are not the tenant's to see.
 */
export async function listMessages(
  ports: ManagementPorts,
  caller: Caller,
  ask: MessageListAsk,
): Promise<MessageList> {
  const index = messageIndex(ports);
  const tenant = messageTenant(caller, ask.tenant);
  const subscribers = endpointsFor(caller, await ports.catalog.read(), ask.subscribers);
  if (subscribers !== undefined && subscribers.length === 0) return { items: [], nextCursor: null };
  const { tenant: _asked, subscribers: _named, ...rest } = ask;
  return index.list({ ...defined(rest), tenant, ...(subscribers === undefined ? {} : { subscribers }) });
}

/** Whose message (the operator names the tenant) and which of the caller's endpoints' steps. */
export interface MessageReadOptions {
  readonly tenant?: string | undefined;
  readonly subscribers?: readonly string[] | undefined;
}

/** One message of the tenant with every attempt of the caller's endpoints; another tenant's is not found. */
export async function getMessage(
  ports: ManagementPorts,
  caller: Caller,
  eventId: string,
  options: MessageReadOptions,
): Promise<MessageDetail> {
  const index = messageIndex(ports);
  const tenant = messageTenant(caller, options.tenant);
  const subscribers = endpointsFor(caller, await ports.catalog.read(), options.subscribers);
  const found =
    subscribers !== undefined && subscribers.length === 0
      ? null
      : await index.get(tenant, eventId, subscribers);
  if (found === null || found.tenant !== tenant)
    throw new ManagementError('not_found', `no message "${eventId}"`);
  return found;
}

/**
 * Where an event's record is on the events topic. The message index answers for a tenant's
 * message it holds (one indexed lookup); otherwise the ledger query, which reads the attempt log
 * partition the id hashes to whole, and the events topic when no step names the record.
 */
export async function eventOrigin(
  ports: ManagementPorts,
  eventId: string,
  tenant: string | undefined,
): Promise<RecordLocation | null> {
  if (tenant !== undefined && ports.messages !== undefined) {
    const indexed = await ports.messages.origin(tenant, eventId);
    if (indexed !== null) return indexed;
  }
  return (await ports.ledger(eventId)).origin;
}

function messageIndex(ports: ManagementPorts): MessageIndex {
  if (ports.messages !== undefined) return ports.messages;
  throw new ManagementError('messages_unavailable', 'this process keeps no message index', {
    canRetry: false,
  });
}

/** The tenant whose messages are read: a tenant caller's own; the operator's must be named. */
export function messageTenant(caller: Caller, asked: string | undefined): string {
  const own = tenantOf(caller);
  if (own !== undefined) {
    if (asked !== undefined && asked !== own)
      throw new ManagementError('forbidden_tenant', "a tenant token reads its own tenant's messages only");
    return own;
  }
  if (asked === undefined)
    throw new ManagementError('invalid_request', 'name the tenant whose messages to read', {
      details: [{ path: 'tenant', message: 'required of the operator' }],
    });
  return asked;
}

/**
 * Whose steps the index may answer with: the operator's named ones (undefined: every endpoint);
 * a tenant's own subscribers, only those named when it names some (another's name matches none).
 */
function endpointsFor(
  caller: Caller,
  snapshot: CatalogSnapshot,
  named: readonly string[] | undefined,
): readonly string[] | undefined {
  const tenant = tenantOf(caller);
  if (tenant === undefined) return named;
  const own = [...snapshot.subscribers.values()]
    .filter((r) => r.definition.tenant === tenant)
    .map((r) => r.definition.name)
    .sort();
  return named === undefined ? own : own.filter((n) => named.includes(n));
}

/** The members whose value is not undefined (exactOptionalPropertyTypes). */
function defined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
