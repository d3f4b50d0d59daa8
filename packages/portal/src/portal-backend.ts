import type { MessagePayload } from '@hookstream/api-schemas';
import type {
  Caller,
  EventTypeEntry,
  MessageDetail,
  MessageListAsk,
  MessageSummary,
  Page,
  PutResult,
  RotatedSecret,
  StateResult,
  SubscriberItem,
  SubscriberResource,
} from '@hookstream/management';

/** A messages list as the portal asks it: always the link's own tenant (the caller's). */
export type MessageQuery = Omit<MessageListAsk, 'tenant'>;

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
  messagePayload(caller: Caller, eventId: string, subscribers?: readonly string[]): Promise<MessagePayload>;
  resendMessage(
    caller: Caller,
    request: { eventId: string; subscriber: string },
  ): Promise<{ eventId: string }>;
  sendExample(caller: Caller, request: { subscriber: string; type: string }): Promise<{ eventId: string }>;
  /** Starts sending the endpoint's dead letters since a time again (a replay job). */
  recover(caller: Caller, request: { subscriber: string; since: string }): Promise<{ jobId: string }>;
  notices(caller: Caller, limit: number): Promise<readonly NoticeView[]>;
  /** Example data of a type, made from its schema (as send-example makes it), for the catalogue. */
  example(schema: Readonly<Record<string, unknown>>): unknown;
}
