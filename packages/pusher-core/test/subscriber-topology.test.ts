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

  it('takes the operational notices only when it names them: `*` alone does not', () => {
    const star = topology();
    const named = topology({ eventTypes: ['*', 'subscriber.failing'] });
    expect(star.takes('subscriber.failing', notices, 'orders')).toBe(false);
    expect(named.takes('subscriber.failing', notices, 'orders')).toBe(true);
    expect(named.takes('subscriber.dead_lettered', notices, 'orders')).toBe(false);
  });

  it('passes over notices of its own delivery failures, and takes other subscribers’', () => {
    const operational = ['subscriber.dead_lettered', 'subscriber.failing', 'subscriber.recovered'];
    const t = topology({ eventTypes: operational });
    for (const type of operational) {
      expect([type, t.takes(type, notices, 'billing')]).toEqual([type, false]);
      expect([type, t.takes(type, notices, 'orders')]).toEqual([type, true]);
    }
    // Its own disable and enable are not delivery failures: it is told of them as before.
    expect(topology().takes('subscriber.enabled', notices, 'billing')).toBe(true);
  });
});
