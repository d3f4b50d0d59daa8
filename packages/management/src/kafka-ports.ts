import { loadEventCatalog } from '@hookstream/contracts';
import { queryLedger, readDeadLetters, replayDeadLetters } from '@hookstream/dead-letter-tools';
import type { KafkaConnection } from '@hookstream/kafka';
import {
  AuditTrail,
  deleteSubscriber,
  type LiveCatalog,
  type NoticePublisher,
  readAuditTrail,
  readInstanceStatuses,
  type SecretsKey,
  subscriberOverviewsWithHeadroom,
} from '@hookstream/subscribers';
import type { ManagementPorts } from './management-ports.ts';

/**
 * How long a tenant's delete waits for the fleet to leave the subscriber's group before it
 * answers 409 group_in_use (the record is gone; the same delete again finishes the purge):
 * bounded well inside an HTTP client's patience.
 */
const TENANT_RELEASE_TIMEOUT_MS = 20_000;

/**
 * The ports against Kafka: the catalog, the dead-letter tools and the audit trail. `catalog` is
 * started and stopped by the caller, around the server's life.
 */
export function kafkaPorts(context: {
  readonly kafka: KafkaConnection;
  readonly catalog: LiveCatalog;
  readonly eventsTopic: string;
  readonly secretsKey: SecretsKey | undefined;
  readonly openPublisher: () => Promise<NoticePublisher & { close(): Promise<void> }>;
}): ManagementPorts {
  const { kafka, eventsTopic, catalog } = context;
  const catalogue = [...loadEventCatalog().values()].map((s) => ({
    type: s.type,
    subject: s.subject,
    schema: s.avro,
  }));
  return {
    eventsTopic,
    secretsKey: context.secretsKey,
    catalog,
    deleteSubscriber: (request) =>
      deleteSubscriber(catalog.catalog, { releaseTimeoutMs: TENANT_RELEASE_TIMEOUT_MS, ...request }),
    openPublisher: context.openPublisher,
    overviews: (records, nowMs) => subscriberOverviewsWithHeadroom(kafka, records, { eventsTopic, nowMs }),
    instanceStatuses: () => readInstanceStatuses(kafka),
    readDeadLetters: (name) => readDeadLetters(kafka, name),
    replayDeadLetters: (request) => replayDeadLetters(kafka, request),
    ledger: (eventId) => queryLedger(kafka, { eventId, eventsTopic }),
    eventTypes: () => catalogue,
    audit: new AuditTrail(kafka),
    readAudit: (selection) => readAuditTrail(kafka, selection),
    now: () => new Date(),
  };
}
