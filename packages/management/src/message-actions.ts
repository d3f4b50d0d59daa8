import { randomUUID } from 'node:crypto';
import type { ResendAnswer, SendExampleAnswer } from '@hookstream/api-schemas';
import {
  type AuditAction,
  type AuditDetail,
  CE_HEADER,
  EventSelection,
  tenantOf as eventTenantOf,
  formatLocation,
  isNoticeType,
  type SubscriberRecord,
} from '@hookstream/contracts';
import { freshTierRecord } from '@hookstream/replay';
import { auditRecordOf } from '@hookstream/subscribers';
import { auditActorOf, type Caller, tenantOf } from './caller.ts';
import { ManagementError } from './errors.ts';
import { exampleData } from './example-data.ts';
import type { ManagementPorts } from './management-ports.ts';
import { eventOrigin } from './message-reads.ts';
import { visibleRecord } from './tenant-rules.ts';

/** Where an example says it comes from (its ce_source). */
export const EXAMPLE_SOURCE = 'hookstream.portal';

/**
 * Sends one event again to one endpoint: a copy of its events-topic record on the subscriber's
 * retry tier 1, with a fresh attempt budget, due now, and the same id (receivers deduplicate on
 * it; a resend is the user's explicit ask to get it again). Only that subscriber receives it.
 * The event must be the caller's tenant's and one the subscriber takes by tenant: otherwise it is
 * not found, as an unknown id is. Every check comes before the write; the audit record after it.
 */
export async function resendMessage(
  ports: ManagementPorts,
  caller: Caller,
  ask: { readonly eventId: string; readonly subscriber: string },
): Promise<ResendAnswer> {
  const record = visibleRecord(await ports.catalog.read(), ask.subscriber, caller);
  const notFound = () => new ManagementError('not_found', `no event "${ask.eventId}"`);
  const own = tenantOf(caller);
  // A tenant's subscriber takes only its tenant's events: the event, if it may be resent, is that tenant's.
  const origin = await eventOrigin(ports, ask.eventId, own ?? record.definition.tenant);
  if (origin === null) throw notFound();
  const stored = await ports.readRecordAt(origin);
  if (stored === null || stored.value === null || stored.headers[CE_HEADER.id] !== ask.eventId)
    throw notFound();
  const eventTenant = eventTenantOf(stored.headers);
  const selection = EventSelection.of(record.definition);
  if ((own !== undefined && eventTenant !== own) || !selection.takesTenant(eventTenant)) throw notFound();
  const type = stored.headers[CE_HEADER.type];
  if (!selection.takesType(type))
    throw new ManagementError('type_not_taken', `"${ask.subscriber}" does not take ${type ?? 'this type'}`);
  const nowMs = ports.now().getTime();
  const tier = freshTierRecord(
    { key: stored.key ?? ask.eventId, value: stored.value, headers: stored.headers },
    { eventId: ask.eventId, subscriber: ask.subscriber, origin, source: origin },
    { replayId: `rsd_${randomUUID()}`, nowMs, operator: caller.id },
  );
  const sentTo = formatLocation(await ports.sendToRetryTier(ask.subscriber, tier));
  await audit(ports, caller, record, 'message.resent', { eventId: ask.eventId, sentTo });
  return { eventId: ask.eventId, subscriber: ask.subscriber, sentTo };
}

/**
 * Sends an example event of a type to one endpoint: data made from the type's schema
 * (exampleData), encoded as the producer encodes (registry wire format, ce_* headers, a new id,
 * the subscriber's tenant), written to that subscriber's retry tier 1 only, never the events
 * topic, so no other endpoint receives it. The subscriber must take the type (422 type_not_taken).
 */
export async function sendExample(
  ports: ManagementPorts,
  caller: Caller,
  ask: { readonly subscriber: string; readonly type: string },
): Promise<SendExampleAnswer> {
  const record = visibleRecord(await ports.catalog.read(), ask.subscriber, caller);
  const entry = ports.eventTypes().find((t) => t.type === ask.type);
  if (entry === undefined || isNoticeType(ask.type))
    throw new ManagementError(
      'invalid_body',
      entry === undefined
        ? `no event type "${ask.type}"`
        : `${ask.type} is a notice: only hookstream sends it`,
      { details: [{ path: 'type', message: 'a type of the event catalogue, not a notice' }] },
    );
  if (!EventSelection.of(record.definition).takesType(ask.type))
    throw new ManagementError('type_not_taken', `"${ask.subscriber}" does not take ${ask.type}`, {
      details: [{ path: 'type', message: `not among the types "${ask.subscriber}" takes` }],
    });
  const encoder = ports.examples;
  if (encoder === undefined)
    throw new ManagementError(
      'examples_unavailable',
      'this process has no schema registry to encode examples',
      {
        canRetry: false,
      },
    );
  const now = ports.now();
  const eventId = randomUUID();
  const encoded = await encoder.encode({
    id: eventId,
    type: ask.type,
    tenant: record.definition.tenant,
    time: now.toISOString(),
    source: EXAMPLE_SOURCE,
    data: exampleData(entry.schema, { nowMs: now.getTime() }),
  });
  const tier = freshTierRecord(
    encoded,
    { eventId, subscriber: ask.subscriber },
    { replayId: `exm_${randomUUID()}`, nowMs: now.getTime(), operator: caller.id },
  );
  const sentTo = formatLocation(await ports.sendToRetryTier(ask.subscriber, tier));
  await audit(ports, caller, record, 'example.sent', { eventId, type: ask.type, sentTo });
  return { eventId, subscriber: ask.subscriber, type: ask.type, sentTo };
}

/**
 * The action's audit record: it changes no record, so before and after are both its digest (as a
 * secret read's are). One that cannot be written fails the answer (audit_not_written): the event
 * was sent.
 */
async function audit(
  ports: Pick<ManagementPorts, 'audit' | 'now'>,
  caller: Caller,
  record: SubscriberRecord,
  action: AuditAction,
  detail: AuditDetail,
): Promise<void> {
  await ports.audit.write([
    auditRecordOf({
      actor: auditActorOf(caller),
      action,
      subscriber: record.definition.name,
      before: record,
      after: record,
      detail,
      now: ports.now(),
    }),
  ]);
}
