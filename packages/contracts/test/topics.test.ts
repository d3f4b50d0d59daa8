import { describe, expect, it } from 'vitest';
import { dlqTopicName, retryTopicName, SubscriberName, subscriberGroupId } from '../src/topics.ts';

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

  it.each(['Billing', 'a b', '', '-x', 'x/y', 'a'.repeat(101)])('rejects %j as a subscriber name', (name) => {
    expect(SubscriberName.safeParse(name).success).toBe(false);
  });

  it.each(['billing', 'crm.eu-1', 'a_b', '0day'])('accepts %j', (name) => {
    expect(SubscriberName.safeParse(name).success).toBe(true);
  });
});
