import { isInstanceStale, loadEventCatalog } from '@hookstream/contracts';
import { queryLedger, readDeadLetters, replayDeadLetters } from '@hookstream/dead-letter-tools';
import { type KafkaConnection, RecordSender, readRecordAt } from '@hookstream/kafka';
import { replayTopic } from '@hookstream/replay';
import {
  commitSubscriberStart,
  deleteSubscriber,
  HeadroomReader,
  type LiveCatalog,
  type NoticePublisher,
  readAuditTrail,
  readInstanceStatuses,
  rewindSubscriber,
  type SecretsKey,
  subscriberOverviewsWithHeadroom,
} from '@hookstream/subscribers';
import { ManagementError } from './errors.ts';
import type { ExampleEncoder, ManagementPorts, PullPort } from './management-ports.ts';
import type { MessageIndex } from './message-index.ts';
import { RecentRead } from './recent-read.ts';
import type { TenantQuotas } from './tenant-quotas.ts';
import type { TenantPolicy } from './tenant-rules.ts';

/**
 * How long a delete's purge or a rewind waits for the fleet to leave the subscriber's group
 * before it answers 409 group_in_use (a delete: the record is gone, the same delete again
 * finishes the purge; a rewind: nothing moved, the subscriber resumed): by default bounded well
 * inside an HTTP client's patience.
 */
const DEFAULT_RELEASE_TIMEOUT_MS = 20_000;

/**
 * How old the measured figures a request answers may be (RecentRead): the instance statuses
 * (instances report every few seconds) and a page's lag, DLQ depth and headroom. Past the first,
 * they are read again in the background; past the second, the request waits for a fresh read.
 */
const MEASURED_AGES = { maxAgeMs: 2000, maxStaleMs: 10_000 };
/** Pages whose measurements are kept (each a RecentRead); the oldest page is dropped first. */
const KEPT_PAGES = 32;

/**
 * The ports against Kafka: the catalog, the dead-letter tools and the audit trail. `catalog` is
 * started and stopped by the caller, around the server's life.
 */
export function kafkaPorts(context: {
  readonly kafka: KafkaConnection;
  readonly catalog: LiveCatalog;
  readonly eventsTopic: string;
  readonly secretsKey: SecretsKey | undefined;
  /** What a tenant may make; absent: DEFAULT_TENANT_QUOTAS. */
  readonly tenantQuotas?: TenantQuotas;
  readonly tenantPolicy?: TenantPolicy;
  readonly openPublisher: () => Promise<NoticePublisher & { close(): Promise<void> }>;
  /** How long a purge or a rewind waits for the fleet to leave the group (default 20 s). */
  readonly releaseTimeoutMs?: number;
  /** This process's pull subscribers (PullHost); absent: it serves none. */
  readonly pull?: PullPort;
  /** Encodes examples (the producer's encoding); absent: send-example answers 503. */
  readonly examples?: ExampleEncoder;
  /** The portal's message index; absent: the messages reads answer 503. */
  readonly messages?: MessageIndex;
  readonly payloads?: ManagementPorts['payloads'];
  readonly decodeEvent?: ManagementPorts['decodeEvent'];
}): ManagementPorts {
  const { kafka, eventsTopic, catalog } = context;
  const releaseTimeoutMs = context.releaseTimeoutMs ?? DEFAULT_RELEASE_TIMEOUT_MS;
  const statuses = new RecentRead(() => readInstanceStatuses(kafka), MEASURED_AGES);
  const instanceStatuses = async () => {
    const nowMs = Date.now();
    return (await statuses.get()).filter((s) => !isInstanceStale(s, nowMs));
  };
  // The page measurements' kept admin (the catalog's), topic listing and headroom reader.
  const topics = new RecentRead(async () => new Set(await catalog.admin.listTopics()), MEASURED_AGES);
  const kept = {
    admin: catalog.admin,
    topics: () => topics.get(),
    headrooms: new HeadroomReader(catalog.admin, eventsTopic),
  };
  const pages = new Map<string, RecentRead<Awaited<ReturnType<ManagementPorts['overviews']>>>>();
  // Each read measures at its own time: an answer's ages are as of the read it comes from.
  const overviews: ManagementPorts['overviews'] = (records) => {
    const key = records.map((r) => r.definition.name).join('\n');
    let page = pages.get(key);
    if (page === undefined) {
      page = new RecentRead(
        () =>
          subscriberOverviewsWithHeadroom(kafka, records, {
            eventsTopic,
            nowMs: Date.now(),
            instanceStatuses,
            kept,
          }),
        MEASURED_AGES,
      );
      pages.set(key, page);
      const oldest = pages.keys().next().value;
      if (pages.size > KEPT_PAGES && oldest !== undefined) pages.delete(oldest);
    }
    return page.get();
  };
  const catalogue = [...loadEventCatalog().values()].map((s) => ({
    type: s.type,
    subject: s.subject,
    schema: s.avro,
  }));
  return {
    eventsTopic,
    ...(context.tenantQuotas === undefined ? {} : { tenantQuotas: context.tenantQuotas }),
    ...(context.tenantPolicy === undefined ? {} : { tenantPolicy: context.tenantPolicy }),
    secretsKey: context.secretsKey,
    catalog,
    commitStart: async (definition) => {
      await commitSubscriberStart(kafka, catalog.admin, definition, eventsTopic);
    },
    // A pull subscriber served here leaves its group first: a purge and a rewind wait for it empty.
    deleteSubscriber: async (request) => {
      await context.pull?.release(request.name);
      return deleteSubscriber(catalog.catalog, { releaseTimeoutMs, ...request });
    },
    rewind: async (request, audit) => {
      if (!request.dryRun) await context.pull?.release(request.name);
      return rewindSubscriber(
        {
          catalog,
          admin: catalog.admin,
          audit,
          openPublisher: context.openPublisher,
          groupEmptied: (name, timeoutMs) => catalog.catalog.groupEmptied(name, timeoutMs),
          releaseTimeoutMs,
        },
        request,
      );
    },
    openPublisher: context.openPublisher,
    overviews,
    instanceStatuses,
    readDeadLetters: (name) => readDeadLetters(kafka, name),
    replayDeadLetters: (request) => replayDeadLetters(kafka, request),
    ledger: (eventId, knownOrigin) => queryLedger(kafka, { eventId, eventsTopic, knownOrigin }),
    eventTypes: () => catalogue,
    audit: catalog.audit,
    readAudit: (selection) => readAuditTrail(kafka, selection),
    now: () => new Date(),
    ...(context.pull === undefined ? {} : { pull: context.pull }),
    readRecordAt: (location) => readRecordAt(kafka, location, { purpose: 'resend' }),
    sendToRetryTier: retryTierSender(kafka, catalog),
    ...(context.examples === undefined ? {} : { examples: context.examples }),
    ...(context.messages === undefined ? {} : { messages: context.messages }),
    ...(context.payloads === undefined ? {} : { payloads: context.payloads }),
    ...(context.decodeEvent === undefined ? {} : { decodeEvent: context.decodeEvent }),
  };
}

/**
 * Writes one record to a subscriber's tier 1 (acks=all). A sender per write: these are a user's
 * single actions, and a kept one would need a close these ports do not have. The tier is made by
 * the subscriber's pusher: one that does not exist yet is refused rather than created here with
 * other settings than the pusher's.
 */
function retryTierSender(kafka: KafkaConnection, catalog: LiveCatalog): ManagementPorts['sendToRetryTier'] {
  return async (subscriber, record) => {
    const topic = replayTopic(subscriber);
    if (!(await catalog.admin.topicExists(topic)))
      throw new ManagementError(
        'no_retry_tier',
        `"${subscriber}" has no retry tier yet (${topic}): its pusher makes it when it first starts`,
      );
    const sender = new RecordSender(kafka, { ackTimeoutMs: 10_000, retries: 5 });
    await sender.connect();
    try {
      const [position] = await sender.send(topic, [record]);
      if (position === undefined) throw new Error(`no position for the record written to ${topic}`);
      return { topic, partition: position.partition, offset: position.offset };
    } finally {
      await sender.disconnect().catch(() => undefined);
    }
  };
}
