import { describe, expect, it } from 'vitest';
import { componentAcls } from '../src/kafka-acls.ts';
import {
  dlqTopicName,
  retryTierOf,
  retryTopicName,
  SubscriberName,
  subscriberGroupId,
} from '../src/topics.ts';

describe('subscriber names', () => {
  it('derives the group, retry and DLQ names the design fixes', () => {
    expect(subscriberGroupId('billing')).toBe('hookstream.sub.billing');
    expect(retryTopicName('billing', 2)).toBe('hookstream.sub.billing.retry.2');
    expect(dlqTopicName('billing')).toBe('hookstream.sub.billing.dlq');
  });

  it('refuses tier 0 and fractional tiers', () => {
    expect(() => retryTopicName('billing', 0)).toThrow(RangeError);
    expect(() => retryTopicName('billing', 1.5)).toThrow(RangeError);
  });

  it("names a topic's tier for its own subscriber only, listed in its definition or not", () => {
    expect(retryTierOf('billing', 'hookstream.sub.billing.retry.7')).toBe(7);
    expect(retryTierOf('billing', 'hookstream.sub.billing.dlq')).toBeNull();
    expect(retryTierOf('billing', 'hookstream.sub.billing.retry.0')).toBeNull();
    expect(retryTierOf('billing', 'hookstream.sub.billing.retry.1x')).toBeNull();
    // Another subscriber whose name starts with this one's.
    expect(retryTierOf('billing', 'hookstream.sub.billing.eu.retry.1')).toBeNull();
    expect(retryTierOf('billing.retry', 'hookstream.sub.billing.retry.retry.2')).toBe(2);
    expect(retryTierOf('billing', 'hookstream.sub.billing.retry.retry.2')).toBeNull();
  });

  it("lets a pusher read and change its own topics' settings (tier retention follows the definition)", () => {
    const own = componentAcls({ role: 'pusher', eventsTopic: 'events' }).find(
      (g) => g.resource === 'topic' && g.name === 'hookstream.sub.',
    );
    expect(own?.pattern).toBe('prefixed');
    expect(own?.operations).toEqual(expect.arrayContaining(['DESCRIBE_CONFIGS', 'ALTER_CONFIGS']));
  });

  it("lets a pusher (and the tools running with its grants) read the events topic's retention, not change it", () => {
    const events = componentAcls({ role: 'pusher', eventsTopic: 'events' }).find(
      (g) => g.resource === 'topic' && g.name === 'events',
    );
    expect(events?.pattern).toBe('literal');
    expect(events?.operations).toContain('DESCRIBE_CONFIGS');
    expect(events?.operations).not.toContain('ALTER_CONFIGS');
    expect(events?.operations).not.toContain('WRITE');
  });

  it.each(['Billing', 'a b', '', '-x', 'x/y', 'a'.repeat(101)])('rejects %j as a subscriber name', (name) => {
    expect(SubscriberName.safeParse(name).success).toBe(false);
  });

  it.each(['billing', 'crm.eu-1', 'a_b', '0day'])('accepts %j', (name) => {
    expect(SubscriberName.safeParse(name).success).toBe(true);
  });
});
