import { parseEgressProxy } from '@hookstream/delivery';
import { describe, expect, it } from 'vitest';
import { ConnectProxy } from '../support/connect-proxy.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

// Issue 28 item 5 (egress proxy) on the real stack: a pusher with HOOKSTREAM_EGRESS_PROXY
// delivers through a local CONNECT proxy to a real receiver; a proxy that refuses tunnels makes
// every attempt a proxy-error, retried, and the destination's breaker never hears of it.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();

describe('deliveries through an egress proxy', () => {
  openForSuite(fx, factory, receivers);

  it('carries every delivery through the proxy, tunnelled to the destination', async () => {
    const proxy = new ConnectProxy();
    const url = await proxy.listen();
    try {
      const topic = await fx.topic(2);
      const endpoint = await receivers.start();
      const name = uniqueName('proxied');
      await fx.startPusher(topic, { name, url: endpoint.url }, undefined, undefined, {
        egressProxy: parseEgressProxy({ HOOKSTREAM_EGRESS_PROXY: url }),
      });
      const events = Array.from({ length: 20 }, () => factory.event());
      await fx.produce(topic, factory, events);
      await fx.settledEverything(name, topic);
      const accepted = endpoint.arrivals.filter((a) => a.subscriptionId === name && a.status === 204);
      expect(accepted.map((a) => a.eventId).sort()).toEqual(events.map((e) => e.id).sort());
      // Keep-alive: few tunnels, every one to the destination's checked address.
      expect(proxy.targets.length).toBeGreaterThan(0);
      expect(new Set(proxy.targets)).toEqual(new Set([new URL(endpoint.url).host]));
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it('a proxy that refuses tunnels: attempts fail as proxy-error and are retried; the breaker stays closed', async () => {
    const proxy = new ConnectProxy();
    proxy.refuse = true;
    const url = await proxy.listen();
    try {
      const topic = await fx.topic(1);
      const endpoint = await receivers.start();
      const name = uniqueName('proxy-down');
      const { logs } = await fx.startPusher(
        topic,
        {
          name,
          url: endpoint.url,
          breaker: {
            enabled: true,
            consecutiveFailures: 3,
            failureRatio: 0.5,
            windowMs: 60_000,
            minAttempts: 5,
            probeIntervalMs: 1000,
          },
        },
        undefined,
        undefined,
        { egressProxy: parseEgressProxy({ HOOKSTREAM_EGRESS_PROXY: url }) },
      );
      await fx.produce(
        topic,
        factory,
        Array.from({ length: 6 }, () => factory.event()),
      );
      const proxyErrors = () =>
        logs.filter((l) => l.message === 'retry scheduled' && l.fields.outcome === 'proxy-error').length;
      await waitFor('six attempts failed by the proxy and retried', async () =>
        proxyErrors() >= 6 ? true : undefined,
      );
      expect(endpoint.arrivals.filter((a) => a.subscriptionId === name)).toEqual([]);
      expect(logs.filter((l) => l.message === 'breaker open')).toEqual([]);
      // The proxy comes back: everything arrives.
      proxy.refuse = false;
      const accepted = () => endpoint.arrivals.filter((a) => a.subscriptionId === name && a.status === 204);
      await waitFor('the six events delivered once the proxy lets them through', async () =>
        accepted().length >= 6 ? true : undefined,
      );
      expect(new Set(accepted().map((a) => a.eventId)).size).toBe(6);
    } finally {
      await proxy.close();
    }
  }, 90_000);
});
