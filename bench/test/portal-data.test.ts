import { describe, expect, it } from 'vitest';
import { PortalWorkload } from '../src/portal-data.ts';

describe('PortalWorkload', () => {
  const workload = new PortalWorkload(100, 20_000);

  it('gives every message a tenant, the largest about as many as Zipf says', () => {
    expect(workload.sizes.reduce((a, b) => a + b, 0)).toBe(20_000);
    // H(100) ≈ 5.19: the largest tenant has about a fifth of the messages, the 100th ~1/100 of that.
    expect(workload.sizes[0]).toBeGreaterThan(3_400);
    expect(workload.sizes[0]).toBeLessThan(4_300);
    expect(workload.sizes[99]).toBeLessThan(100);
  });

  it('writes 1–3 endpoints of the tenant per message, with the report’s mix of outcomes', () => {
    const last = new Map<string, string>();
    let entries = 0;
    for (let i = 0; i < workload.messages; i++) {
      const endpoints = new Set<string>();
      for (const entry of workload.entriesOf(i)) {
        entries += 1;
        expect(entry.tenant).toBe(workload.tenantName(workload.tenantOf[i] ?? -1));
        endpoints.add(entry.subscriber);
        last.set(`${entry.eventId} ${entry.subscriber}`, entry.step);
      }
      expect(endpoints.size).toBeGreaterThanOrEqual(1);
      expect(endpoints.size).toBeLessThanOrEqual(3);
    }
    const share = (step: string) => [...last.values()].filter((s) => s === step).length / last.size;
    expect(share('delivered')).toBeCloseTo(0.98, 1);
    expect(share('dead-lettered')).toBeGreaterThan(0.01);
    expect(share('dead-lettered')).toBeLessThan(0.02);
    expect(entries / workload.messages).toBeGreaterThan(1.5);
  });
});
