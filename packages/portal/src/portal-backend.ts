import type {
  Caller,
  EventTypeEntry,
  Page,
  PutResult,
  RotatedSecret,
  StateResult,
  SubscriberItem,
  SubscriberResource,
} from '@hookstream/management';

/** Where a message stands for one endpoint, and for all of them together. */
export type MessageState = 'delivered' | 'pending' | 'failed' | 'filtered';

export interface MessageEndpoint {
  readonly subscriber: string;
  readonly step: string;
  readonly attempts: number;
  readonly lastStatus?: number | undefined;
  readonly lastAt: string;
}

export interface MessageSummary {
  readonly eventId: string;
  /** Null for steps written before the attempt log carried the event's type. */
  readonly type: string | null;
  readonly firstAt: string;
  readonly lastAt: string;
  readonly state: MessageState;
  readonly endpoints: readonly MessageEndpoint[];
}

export interface MessageAttempt {
  readonly subscriber: string;
  readonly attempt: number;
  readonly step: string;
  readonly at: string;
  readonly status?: number | undefined;
  readonly durationMs?: number | undefined;
  readonly outcome?: string | undefined;
  readonly excerpt?: string | undefined;
}

export interface MessageDetail extends MessageSummary {
  readonly attempts: readonly MessageAttempt[];
}

export interface MessageQuery {
  readonly subscribers?: readonly string[] | undefined;
  readonly types?: readonly string[] | undefined;
  readonly state?: MessageState | undefined;
  readonly eventId?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/** A message's data as the operator lets it be shown: nothing, a size and hash, or the data. */
export type PayloadView =
  | { readonly mode: 'none' }
  | { readonly mode: 'digest'; readonly bytes: number; readonly sha256: string }
  | { readonly mode: 'full'; readonly bytes: number; readonly sha256: string; readonly data: unknown };

/** One operational notice of the tenant, as the notices page lists it. */
export interface NoticeView {
  readonly id: string;
  readonly type: string;
  readonly time: string;
  readonly subscriber: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The operations the portal's pages run, each as the link's caller: the management service's
 * own (the API's routes call the same), so a page and the API never disagree.
 */
export interface PortalBackend {
  listSubscribers(
    caller: Caller,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Page<SubscriberItem>>;
  getSubscriber(caller: Caller, name: string): Promise<SubscriberResource>;
  putSubscriber(caller: Caller, name: string, body: unknown, ifMatch?: string): Promise<PutResult>;
  changeState(caller: Caller, name: string, request: { action: 'pause' | 'resume' }): Promise<StateResult>;
  rotateSecret(caller: Caller, name: string): Promise<RotatedSecret>;
  eventTypes(caller: Caller): Promise<EventTypeEntry[]>;
  listMessages(
    caller: Caller,
    query: MessageQuery,
  ): Promise<{ items: readonly MessageSummary[]; nextCursor: string | null }>;
  getMessage(caller: Caller, eventId: string, subscribers?: readonly string[]): Promise<MessageDetail>;
  /** As much of a message's data as the operator's mode shows. */
  messagePayload(caller: Caller, eventId: string, subscribers?: readonly string[]): Promise<PayloadView>;
  resendMessage(
    caller: Caller,
    request: { eventId: string; subscriber: string },
  ): Promise<{ eventId: string }>;
  sendExample(caller: Caller, request: { subscriber: string; type: string }): Promise<{ eventId: string }>;
  /** Starts sending the endpoint's dead letters since a time again (a replay job). */
  recover(caller: Caller, request: { subscriber: string; since: string }): Promise<{ jobId: string }>;
  notices(caller: Caller, limit: number): Promise<readonly NoticeView[]>;
  /** An example of the type's data, for the catalogue. */
  example(type: string): unknown;
}
