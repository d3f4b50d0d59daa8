import { createHash } from 'node:crypto';
import type { MessagePayload, PayloadMode } from '@hookstream/api-schemas';
import { CE_HEADER } from '@hookstream/contracts';
import type { Caller } from './caller.ts';
import { ManagementError } from './errors.ts';
import type { ManagementPorts } from './management-ports.ts';
import { eventOrigin, getMessage, type MessageReadOptions } from './message-reads.ts';

/** Without the operator's choice: a size and a hash, which help support and show no data. */
export const DEFAULT_PAYLOAD_MODE: PayloadMode = 'digest';

/**
 * As much of a message's data as the operator's mode shows, to a caller who may see the message
 * (its tenant, its endpoints): the record its first step came from, read again from Kafka. The
 * index keeps no payload; the events topic's retention bounds how long one can be shown.
 */
export async function messagePayload(
  ports: ManagementPorts,
  caller: Caller,
  eventId: string,
  options: MessageReadOptions,
): Promise<MessagePayload> {
  const message = await getMessage(ports, caller, eventId, options);
  const mode = ports.payloads ?? DEFAULT_PAYLOAD_MODE;
  if (mode === 'none') return { mode };
  const gone = () =>
    new ManagementError('not_found', `the data of "${eventId}" is no longer kept (the topic's retention)`);
  const origin = await eventOrigin(ports, eventId, message.tenant);
  if (origin === null) throw gone();
  const stored = await ports.readRecordAt(origin);
  if (stored === null || stored.value === null || stored.headers[CE_HEADER.id] !== eventId) throw gone();
  const digest = {
    bytes: stored.value.length,
    sha256: createHash('sha256').update(stored.value).digest('hex'),
  };
  if (mode === 'digest') return { mode, ...digest };
  const decoded = await ports.decodeEvent?.(stored.value, stored.headers[CE_HEADER.type] ?? '');
  if (decoded === undefined || !('data' in decoded))
    throw new ManagementError('payload_unavailable', 'the data cannot be decoded now (the schema registry)', {
      canRetry: true,
    });
  return { mode, ...digest, data: { ...decoded.data } };
}
