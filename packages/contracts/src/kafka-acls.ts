import { ATTEMPT_LOG_TOPIC } from './attempt-log.ts';
import { AUDIT_TOPIC } from './audit.ts';
import { CATALOG_TOPIC } from './catalog-registration.ts';
import { INSTANCE_STATUS_TOPIC } from './instance-status.ts';
import { noticesTopicName } from './notices.ts';
import {
  dlqTopicName,
  REPLAY_TRANSACTIONAL_ID_PREFIX,
  replayLogTopicName,
  replayTransactionalId,
  retryTopicName,
  SUBSCRIBER_GROUP_PREFIX,
  type SubscriberName,
} from './topics.ts';

export type AclOperation = 'READ' | 'WRITE' | 'CREATE' | 'DESCRIBE' | 'DESCRIBE_CONFIGS' | 'ALTER_CONFIGS';

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
  | { readonly role: 'replay'; readonly subscriber: SubscriberName };

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
 * secured-broker test grants exactly these.
 */
export function componentAcls(component: ComponentRole): AclGrant[] {
  switch (component.role) {
    case 'ingress':
      return [
        {
          resource: 'topic',
          pattern: 'literal',
          name: component.eventsTopic,
          operations: ['WRITE', 'DESCRIBE'],
        },
      ];
    case 'pusher':
      return [
        {
          resource: 'topic',
          pattern: 'literal',
          name: component.eventsTopic,
          // DESCRIBE_CONFIGS: its retention, for the retention headroom (docs/operations.md).
          operations: ['READ', 'DESCRIBE', 'DESCRIBE_CONFIGS'],
        },
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
        ].map(
          (name): AclGrant => ({
            resource: 'topic',
            pattern: 'literal',
            name,
            operations: ['READ', 'WRITE', 'CREATE', 'DESCRIBE'],
          }),
        ),
        { resource: 'group', pattern: 'prefixed', name: TOOL_GROUP_PREFIX, operations: ['READ', 'DESCRIBE'] },
        {
          resource: 'transactional-id',
          pattern: 'prefixed',
          name: REPLAY_TRANSACTIONAL_ID_PREFIX,
          operations: ['WRITE', 'DESCRIBE'],
        },
      ];
    case 'replay': {
      const name = component.subscriber;
      return [
        { resource: 'topic', pattern: 'literal', name: dlqTopicName(name), operations: ['READ', 'DESCRIBE'] },
        {
          resource: 'topic',
          pattern: 'literal',
          name: retryTopicName(name, 1),
          operations: ['WRITE', 'DESCRIBE'],
        },
        {
          resource: 'topic',
          pattern: 'literal',
          name: replayLogTopicName(name),
          operations: ['READ', 'WRITE', 'CREATE', 'DESCRIBE'],
        },
        // The replay's audit record (created when first needed); reading the trail is not its part.
        {
          resource: 'topic',
          pattern: 'literal',
          name: AUDIT_TOPIC,
          operations: ['WRITE', 'CREATE', 'DESCRIBE'],
        },
        { resource: 'group', pattern: 'prefixed', name: TOOL_GROUP_PREFIX, operations: ['READ', 'DESCRIBE'] },
        {
          resource: 'transactional-id',
          pattern: 'literal',
          name: replayTransactionalId(name),
          operations: ['WRITE', 'DESCRIBE'],
        },
      ];
    }
  }
}
