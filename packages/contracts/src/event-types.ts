// Generated from schemas/*.avsc by `npm run generate -w @hookstream/contracts`. Do not edit:
// test/event-types.test.ts fails when this file and the schemas disagree.

/** Data of `enrollment.updated` (schemas/enrollment.updated.avsc). */
export type EnrollmentUpdated = {
  readonly enrollment: {
    readonly id: string;
    readonly student_id: string;
    readonly course_id: string;
    readonly status: 'pending' | 'active' | 'completed' | 'withdrawn';
  };
};

/** Data of `key.revoked` (schemas/key.revoked.avsc). */
export type KeyRevoked = {
  readonly tenant_id: string;
  readonly key_id: string;
};

/** Data of `shipment.updated` (schemas/shipment.updated.avsc). */
export type ShipmentUpdated = {
  readonly shipment: {
    readonly id: string;
    readonly status: string;
    readonly carrier?: string | null;
    readonly tracking_number?: string | null;
    readonly updated_at?: string | null;
  };
};

/** Data of `subscriber.dead_lettered` (schemas/subscriber.dead_lettered.avsc). */
export type SubscriberDeadLettered = {
  readonly subscriber: string;
  readonly event: {
    readonly id?: string | null;
    readonly type?: string | null;
  };
  readonly reason: string;
  readonly attempts: number;
  readonly last_status?: number | null;
  readonly last_outcome?: string | null;
  readonly dead_lettered_at: string;
  readonly suppressed: number;
  readonly events_topic: string;
};

/** Data of `subscriber.disabled` (schemas/subscriber.disabled.avsc). */
export type SubscriberDisabled = {
  readonly subscriber: string;
  readonly cause: 'gone' | 'failing';
  readonly reason: string;
  readonly status?: number | null;
  readonly disabled_at: string;
  readonly failing_since?: string | null;
  readonly events_topic: string;
};

/** Data of `subscriber.enabled` (schemas/subscriber.enabled.avsc). */
export type SubscriberEnabled = {
  readonly subscriber: string;
  readonly enabled_at: string;
  readonly by: string;
  readonly was_disabled_at: string;
  readonly was_disabled_reason: string;
  readonly events_topic: string;
};

/** Data of `subscriber.events_lost` (schemas/subscriber.events_lost.avsc). */
export type SubscriberEventsLost = {
  readonly subscriber: string;
  readonly topic: string;
  readonly partition: number;
  readonly lost_from: string;
  readonly lost_to: string;
  readonly lost_count: number;
  readonly last_commit_at?: string | null;
  readonly found_at: string;
  readonly dlq: string;
  readonly events_topic: string;
};

/** Data of `subscriber.failing` (schemas/subscriber.failing.avsc). */
export type SubscriberFailing = {
  readonly subscriber: string;
  readonly destination: string;
  readonly cause: string;
  readonly opened_at: string;
  readonly failing_since?: string | null;
  readonly last_status?: number | null;
  readonly last_outcome?: string | null;
  readonly events_topic: string;
};

/** Data of `subscriber.recovered` (schemas/subscriber.recovered.avsc). */
export type SubscriberRecovered = {
  readonly subscriber: string;
  readonly destination: string;
  readonly recovered_at: string;
  readonly opened_at: string;
  readonly failing_since?: string | null;
  readonly failing_ms: number;
  readonly events_topic: string;
};

/** Data of `subscriber.retention_at_risk` (schemas/subscriber.retention_at_risk.avsc). */
export type SubscriberRetentionAtRisk = {
  readonly subscriber: string;
  readonly state: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly record_timestamp?: string | null;
  readonly headroom_seconds: number;
  readonly basis: 'time' | 'bytes';
  readonly retention_ms?: number | null;
  readonly retention_bytes?: number | null;
  readonly warning_ms: number;
  readonly seen_at: string;
  readonly events_topic: string;
};

/** Event type name -> the data a producer passes for it. */
export interface EventDataByType {
  readonly 'enrollment.updated': EnrollmentUpdated;
  readonly 'key.revoked': KeyRevoked;
  readonly 'shipment.updated': ShipmentUpdated;
  readonly 'subscriber.dead_lettered': SubscriberDeadLettered;
  readonly 'subscriber.disabled': SubscriberDisabled;
  readonly 'subscriber.enabled': SubscriberEnabled;
  readonly 'subscriber.events_lost': SubscriberEventsLost;
  readonly 'subscriber.failing': SubscriberFailing;
  readonly 'subscriber.recovered': SubscriberRecovered;
  readonly 'subscriber.retention_at_risk': SubscriberRetentionAtRisk;
}
