import type { MessageDetail, MessageState, MessageSummary } from '@hookstream/api-schemas';
import type { RecordLocation } from '@hookstream/contracts';

export type { MessageDetail, MessageSummary };

/** What a messages list asks the index for: always one tenant's, newest first. */
export interface MessageIndexQuery {
  readonly tenant: string;
  /** Only these endpoints' steps count (their state, their lines); absent: every endpoint's. */
  readonly subscribers?: readonly string[];
  readonly types?: readonly string[];
  readonly state?: MessageState;
  readonly eventId?: string;
  /** RFC 3339 bounds on the message's first step. */
  readonly since?: string;
  readonly until?: string;
  /** 1 to MAX_MESSAGE_PAGE. */
  readonly limit: number;
  /** The `nextCursor` of the page before, as the index gave it. */
  readonly cursor?: string;
}

/**
 * Where the portal's messages are found: an index of the attempt log, by tenant (the SQLite one
 * of @hookstream/portal-store in production; a fake in tests). The management layer decides who
 * may ask about which tenant and endpoints; the index answers only what it is asked.
 */
export interface MessageIndex {
  list(query: MessageIndexQuery): Promise<{ items: MessageSummary[]; nextCursor: string | null }>;
  /** One message of the tenant with its attempts (only those endpoints' when named); null: none. */
  get(tenant: string, eventId: string, subscribers?: readonly string[]): Promise<MessageDetail | null>;
  /**
   * The events-topic record the tenant's message came from, as its steps name it; null when the
   * index has none. A payload and a resend read that record: found here, they need not read an
   * attempt log partition whole (the ledger query's way).
   */
  origin(tenant: string, eventId: string): Promise<RecordLocation | null>;
}
