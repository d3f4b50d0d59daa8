import { AUDIT_TOPIC } from '@hookstream/contracts';
import { type KafkaConnection, KafkaReadError, readTopic } from '@hookstream/kafka';
import { type AuditSelection, mayBeSelected, selectAuditRecords } from './audit-selection.ts';

/**
 * A record's Kafka timestamp is its producer's clock just after `at`: reading from a minute
 * before `--since` leaves room for clocks that differ a little, and `at` decides.
 */
const CLOCK_SLACK_MS = 60_000;

/**
 * Reads the audit trail from its start (or near `sinceMs`) up to the end it saw when it began
 * (a bounded read, even while changes keep coming), keeping only what the selection may want.
 * No topic yet is an empty trail.
 */
export async function readAuditTrail(kafka: KafkaConnection, selection: AuditSelection) {
  try {
    const raws = await readTopic(kafka, {
      topic: AUDIT_TOPIC,
      purpose: 'audit',
      ...(selection.sinceMs === undefined
        ? {}
        : { from: { timestampMs: Math.max(0, selection.sinceMs - CLOCK_SLACK_MS) } }),
      keep: (r) => mayBeSelected(r, selection),
    });
    return selectAuditRecords(
      raws.map((r) => ({
        key: r.key,
        value: r.value,
        headers: r.headers,
        offset: `${r.partition}:${r.offset}`,
      })),
      selection,
    );
  } catch (err) {
    if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC')
      return selectAuditRecords([], selection);
    throw err;
  }
}
