import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptLogEntry } from '@hookstream/contracts';
import { afterEach } from 'vitest';
import { PortalStore } from '../src/index.ts';

const stores: PortalStore[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store in a file of its own, closed and removed after the test. */
export function openStore(): { store: PortalStore; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'portal-store-'));
  const path = join(dir, 'portal.sqlite');
  dirs.push(dir);
  return { store: reopen(path), path };
}

/** Opens the file again (a restart), closed after the test. */
export function reopen(path: string): PortalStore {
  const store = new PortalStore({ path, cacheBytes: 2 * 1024 * 1024 });
  stores.push(store);
  return store;
}

const T0 = Date.parse('2026-12-01T00:00:00.000Z');
let offset = 0;

/** `minute` minutes after a fixed start. */
export function at(minute: number): string {
  return new Date(T0 + minute * 60_000).toISOString();
}

/** An attempt log entry; each gets a source offset of its own unless given. */
export function entry(fields: Partial<AttemptLogEntry> & { eventId: string; at: string }): AttemptLogEntry {
  offset += 1;
  return {
    subscriber: 'orders-hook',
    step: 'delivered',
    attempt: 1,
    status: 200,
    durationMs: 12,
    tenant: 'acme',
    type: 'order.created',
    source: { topic: 'hookstream.events', partition: 0, offset: String(offset) },
    ...fields,
  };
}
