import { AUDIT_RETENTION_MS, AUDIT_TOPIC, type AuditRecord } from '@hookstream/contracts';
import type { KafkaConnection, RecordSender } from '@hookstream/kafka';
import { encodeAuditRecord } from './audit-records.ts';
import { CatalogError } from './errors.ts';
import { ensureOwnTopic } from './own-topic.ts';
import { OwnTopicWriter } from './own-topic-writer.ts';

/**
 * The audit topic: one partition (one order for every change), deleted by time only, after
 * AUDIT_RETENTION_MS: not compacted, since every change is kept, not each subscriber's last.
 */
export function auditTopicSpec(replicationFactor: number) {
  return {
    topic: AUDIT_TOPIC,
    partitions: 1,
    replicationFactor,
    config: { 'cleanup.policy': 'delete', 'retention.ms': String(AUDIT_RETENTION_MS) },
  };
}

/**
 * Writes audit records to `hookstream.audit` (acks=all), after the change they describe is
 * durable: a record of a change that did not happen would be worse than none. A failure throws
 * AUDIT_NOT_WRITTEN, naming the records, so the command exits non-zero rather than dropping them.
 */
export class AuditTrail {
  readonly #writer: OwnTopicWriter;

  /** `sender`: as SubscriberCatalog's, a connected sender its owner keeps. */
  constructor(kafka: KafkaConnection, options: { readonly sender?: RecordSender } = {}) {
    this.#writer = new OwnTopicWriter(kafka, AUDIT_TOPIC, {
      ensure: () => ensureOwnTopic(kafka, auditTopicSpec),
      sender: options.sender,
    });
  }

  /** Creates the topic when missing (replication: up to 3, as many as there are brokers). */
  ensureTopic(): Promise<void> {
    return this.#writer.ensure();
  }

  /** Writes the records in one batch, in order. */
  async write(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.#writer.send(records.map(encodeAuditRecord));
    } catch (err) {
      const what = records.map((r) => `${r.action} ${r.subscriber}`).join(', ');
      throw new CatalogError(
        'AUDIT_NOT_WRITTEN',
        `the change was made, but its audit record could not be written to ${AUDIT_TOPIC} (${what}): ${
          err instanceof Error ? err.message : String(err)
        }`,
        false,
        { cause: err },
      );
    }
  }
}
