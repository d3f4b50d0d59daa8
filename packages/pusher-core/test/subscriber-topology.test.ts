import { noticesTopicName } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { EVENTS, topology } from './fakes.ts';

describe('SubscriberTopology.takes', () => {
  const notices = noticesTopicName(EVENTS);

  it('takes notices from the notices topic only, and events from anywhere else', () => {
    const t = topology();
    expect(t.takes('subscriber.disabled', notices, 'other')).toBe(true);
    expect(t.takes('subscriber.disabled', EVENTS, 'other')).toBe(false);
    expect(t.takes('shipment.updated', EVENTS)).toBe(true);
    expect(t.takes('shipment.updated', notices)).toBe(false);
  });

  it('passes over notices of its own delivery failures, and takes other subscribers’', () => {
    const t = topology();
    for (const type of ['subscriber.dead_lettered', 'subscriber.failing', 'subscriber.recovered']) {
      expect([type, t.takes(type, notices, 'billing')]).toEqual([type, false]);
      expect([type, t.takes(type, notices, 'orders')]).toEqual([type, true]);
    }
    // Its own disable and enable are not delivery failures: it is told of them as before.
    expect(t.takes('subscriber.enabled', notices, 'billing')).toBe(true);
  });
});
