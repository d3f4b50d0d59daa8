import {
  ManagementError,
  type MessageDetail,
  type MessageIndex,
  type MessageSummary,
} from '@hookstream/management';
import type { EndpointAttempts, MessageSummary as StoredSummary } from './contracts.ts';
import { PortalStoreError } from './errors.ts';
import type { PortalStore } from './portal-store.ts';

/**
 * The store as the management layer's message index: its pages and messages in the API's shape
 * (each endpoint's last step, every attempt in time order). A query the store refuses (too many
 * endpoints or types at once, a foreign cursor) is the caller's 400, with the store's reason.
 */
export function storeMessageIndex(store: PortalStore): MessageIndex {
  return {
    list: async (query) => {
      const page = asked(() =>
        store.listMessages({
          tenant: query.tenant,
          ...(query.subscribers === undefined ? {} : { subscribers: [...query.subscribers] }),
          ...(query.types === undefined ? {} : { types: [...query.types] }),
          ...(query.state === undefined ? {} : { state: query.state }),
          ...(query.eventId === undefined ? {} : { eventId: query.eventId }),
          ...(query.since === undefined ? {} : { since: query.since }),
          ...(query.until === undefined ? {} : { until: query.until }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
          limit: query.limit,
        }),
      );
      return { items: page.messages.map((m) => summaryOf(m, query.tenant)), nextCursor: page.nextCursor };
    },
    get: async (tenant, eventId, subscribers) => {
      const found = asked(() => store.getMessage(tenant, eventId, subscribers));
      if (found === null) return null;
      return { ...summaryOf(found, tenant), attempts: attemptsOf(found.endpoints) };
    },
    origin: async (tenant, eventId) => asked(() => store.messageOrigin(tenant, eventId)),
  };
}

function summaryOf(m: StoredSummary, tenant: string): MessageSummary {
  return {
    eventId: m.eventId,
    type: m.type,
    tenant,
    firstAt: m.firstAt,
    lastAt: m.lastAt,
    state: m.state,
    endpoints: m.endpoints.map((e) => ({
      subscriber: e.subscriber,
      step: e.step,
      attempts: e.attemptCount,
      ...(e.lastStatus === null ? {} : { lastStatus: e.lastStatus }),
      lastAt: e.lastAt,
    })),
  };
}

function attemptsOf(endpoints: readonly EndpointAttempts[]): MessageDetail['attempts'] {
  const all = endpoints.flatMap((e) =>
    e.attempts.map((a) => ({
      subscriber: e.subscriber,
      attempt: a.attempt,
      step: a.step,
      at: a.at,
      ...(a.status === null ? {} : { status: a.status }),
      ...(a.durationMs === null ? {} : { durationMs: a.durationMs }),
      ...(a.outcome === null ? {} : { outcome: a.outcome }),
      ...(a.excerpt === null ? {} : { excerpt: a.excerpt }),
      ...(a.tier === null ? {} : { tier: a.tier }),
      ...(a.dueAt === null ? {} : { dueAt: a.dueAt }),
      ...(a.deadLetterReason === null ? {} : { deadLetterReason: a.deadLetterReason }),
    })),
  );
  return all.sort((a, b) => a.at.localeCompare(b.at));
}

function asked<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof PortalStoreError && !err.canRetry)
      throw new ManagementError('invalid_request', err.message, { cause: err });
    throw err;
  }
}
