import { ATTEMPT_LOG_TOPIC } from './attempt-log.ts';
import { AUDIT_TOPIC } from './audit.ts';
import { CATALOG_TOPIC } from './catalog-registration.ts';
import { INSTANCE_STATUS_TOPIC } from './instance-status.ts';
import { noticesTopicName } from './notices.ts';
import { PORTAL_LINKS_TOPIC } from './portal-link.ts';
import {
  dlqTopicName,
  REPLAY_TRANSACTIONAL_ID_PREFIX,
  replayLogTopicName,
  replayTransactionalId,
  retryTopicName,
  SUBSCRIBER_GROUP_PREFIX,
  type SubscriberName,
} from './topics.ts';

export type AclOperation =
  | 'READ'
  | 'WRITE'
  | 'CREATE'
  | 'DELETE'
  | 'DESCRIBE'
  | 'DESCRIBE_CONFIGS'
  | 'ALTER_CONFIGS';

/**
 * One ALLOW rule: a principal may do these operations on a topic, a group or a transactional id
 * (by name or prefix).
 */
export interface AclGrant {
  readonly resource: 'topic' | 'group' | 'transactional-id';
  readonly pattern: 'literal' | 'prefixed';
  readonly name: string;
  readonly operations: readonly AclOperation[];
}

/** Groups the tools and the fleet's catalog follower read with (random suffix, deleted after). */
export const TOOL_GROUP_PREFIX = 'hookstream.tool.';

export type ComponentRole =
  | { readonly role: 'ingress'; readonly eventsTopic: string }
  | { readonly role: 'pusher'; readonly eventsTopic: string }
  | { readonly role: 'replay'; readonly subscriber: SubscriberName }
  | { readonly role: 'api'; readonly eventsTopic: string };

const topic = (name: string, operations: readonly AclOperation[]): AclGrant => ({
  resource: 'topic',
  pattern: 'literal',
  name,
  operations,
});

/** What several roles share, each granted as one piece. */
const PIECES = {
  /** Read the events topic; DESCRIBE_CONFIGS: its retention, for the retention headroom (docs/operations.md). */
  readEvents: (eventsTopic: string) => topic(eventsTopic, ['READ', 'DESCRIBE', 'DESCRIBE_CONFIGS']),
  /** A topic hookstream keeps and creates when missing, read and written. */
  ownTopic: (name: string) => topic(name, ['READ', 'WRITE', 'CREATE', 'DESCRIBE']),
  /** The readers' throwaway groups (readTopic, the catalog follower). */
  toolGroups: {
    resource: 'group',
    pattern: 'prefixed',
    name: TOOL_GROUP_PREFIX,
    operations: ['READ', 'DESCRIBE'],
  },
  /** Every subscriber's replay lease (a replay of any subscriber). */
  everyReplayLease: {
    resource: 'transactional-id',
    pattern: 'prefixed',
    name: REPLAY_TRANSACTIONAL_ID_PREFIX,
    operations: ['WRITE', 'DESCRIBE'],
  },
} as const satisfies Record<string, AclGrant | ((name: string) => AclGrant)>;

/**
 * The least a component needs, and nothing more: the ingress only writes events; a pusher reads
 * events and owns everything under hookstream.sub. (its groups, tiers, DLQs, replay logs, and
 * their settings: a tier's retention follows the definition) plus
 * the shared attempt log, registry, instance and audit topics and the events topic's notices topic
 * (it publishes subscriber.disabled there, and its subscribers read it; the tools and the console,
 * which run with its grants, write and read the audit trail); a replay operator reads
 * one subscriber's DLQ and writes its tier 1 and replay log, in transactions as that
 * subscriber's replay transactional id (the lease that keeps replays one at a time), and
 * writes its replay's audit record. The pusher's
 * principal may take every replay's id, for the console, which runs with its grants. The
 * management API (apiAcls) is the catalog's writer and any subscriber's replay operator, reads
 * what its overviews and ledgers show, and purges a deleted subscriber. The secured-broker test
 * grants exactly these.
 */
export function componentAcls(component: ComponentRole): AclGrant[] {
  switch (component.role) {
    case 'ingress':
      return [topic(component.eventsTopic, ['WRITE', 'DESCRIBE'])];
    case 'pusher':
      return [
        PIECES.readEvents(component.eventsTopic),
        {
          resource: 'topic',
          pattern: 'prefixed',
          name: SUBSCRIBER_GROUP_PREFIX,
          // Configs: a tier's retention follows the definition's delays and age ceiling.
          operations: ['READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
        },
        {
          resource: 'group',
          pattern: 'prefixed',
          name: SUBSCRIBER_GROUP_PREFIX,
          operations: ['READ', 'DESCRIBE'],
        },
        ...[
          ATTEMPT_LOG_TOPIC,
          INSTANCE_STATUS_TOPIC,
          CATALOG_TOPIC,
          AUDIT_TOPIC,
          noticesTopicName(component.eventsTopic),
        ].map(PIECES.ownTopic),
        PIECES.toolGroups,
        PIECES.everyReplayLease,
      ];
    case 'replay': {
      const name = component.subscriber;
      return [
        topic(dlqTopicName(name), ['READ', 'DESCRIBE']),
        topic(retryTopicName(name, 1), ['WRITE', 'DESCRIBE']),
        PIECES.ownTopic(replayLogTopicName(name)),
        // The replay's audit record (created when first needed); reading the trail is not its part.
        topic(AUDIT_TOPIC, ['WRITE', 'CREATE', 'DESCRIBE']),
        PIECES.toolGroups,
        {
          resource: 'transactional-id',
          pattern: 'literal',
          name: replayTransactionalId(name),
          operations: ['WRITE', 'DESCRIBE'],
        },
      ];
    }
    case 'api':
      return apiAcls(component.eventsTopic);
  }
}

/**
 * The management API's: what its ports touch (packages/management, kafkaPorts). It reads the
 * events topic (ledgers, headroom) and writes the catalog and the audit trail, which it also
 * reads, as the pusher does. Under hookstream.sub. it reads DLQs, tiers and replay logs, writes
 * a replay's tier 1 and replay log (creating the log; a prefix cannot single out tier 1), and
 * deletes: a tenant's delete always purges the group, tiers, DLQ and replay log. Its groups it
 * describes (committed offsets, members), deletes, and reads, which Kafka asks of the offset
 * commit that moves a rewound ledger; it never joins them. It takes any
 * subscriber's replay lease, reads the attempt log (ledgers) and writes a replay's steps there
 * (only when the log exists), reads the fleet's instance statuses, and writes the notices topic
 * (subscriber.enabled on resume). It is the pusher of pull subscribers (`mode: "pull"`): it joins
 * their groups (READ), reads and writes their tiers and DLQ and aligns the tiers' retention
 * (configs), reads the notices topic a subscriber that takes notices reads, and writes their
 * attempt log steps. It serves the customer portal: its links topic, which it makes, and the
 * attempt log it indexes (READ, above) and the notices topic its notices page reads.
 */
function apiAcls(eventsTopic: string): AclGrant[] {
  return [
    PIECES.readEvents(eventsTopic),
    {
      resource: 'topic',
      pattern: 'prefixed',
      name: SUBSCRIBER_GROUP_PREFIX,
      operations: ['READ', 'WRITE', 'CREATE', 'DELETE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
    },
    {
      resource: 'group',
      pattern: 'prefixed',
      name: SUBSCRIBER_GROUP_PREFIX,
      operations: ['READ', 'DELETE', 'DESCRIBE'],
    },
    PIECES.ownTopic(CATALOG_TOPIC),
    PIECES.ownTopic(AUDIT_TOPIC),
    topic(ATTEMPT_LOG_TOPIC, ['READ', 'WRITE', 'DESCRIBE']),
    topic(INSTANCE_STATUS_TOPIC, ['READ', 'DESCRIBE']),
    PIECES.ownTopic(noticesTopicName(eventsTopic)),
    PIECES.ownTopic(PORTAL_LINKS_TOPIC),
    PIECES.toolGroups,
    PIECES.everyReplayLease,
  ];
}
