import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LogFn } from '@hookstream/contracts';
import type { KafkaConnection } from '@hookstream/kafka';
import {
  type Caller,
  exampleData,
  ManagementError,
  type ManagementService,
  type MessageIndex,
} from '@hookstream/management';
import {
  KafkaNoticeReader,
  KafkaPortalLinks,
  type NoticeDecoder,
  type PortalBackend,
  PortalServer,
} from '@hookstream/portal';
import { AttemptIndexer, PortalStore, storeMessageIndex } from '@hookstream/portal-store';

/** The portal's settings, from `hookstream api`'s flags (parsed and bounded there). */
export interface PortalSettings {
  /** Where the message index's SQLite file lives. */
  readonly storeDir: string;
  /** Origins that may frame the portal; none: nothing may. */
  readonly frameAncestors: readonly string[];
  /** Where browsers reach the API (the start of minted links); absent: the listen address. */
  readonly publicUrl?: string | undefined;
  /** Index only the attempt log's records younger than this on a new index (ms); absent: all. */
  readonly indexSinceMs?: number | undefined;
  /** The SQLite page cache: the index's memory bound. */
  readonly cacheBytes?: number | undefined;
}

/** The message index, open before the management service that reads it. */
export function openMessageIndex(
  kafka: KafkaConnection,
  settings: PortalSettings,
  log: LogFn,
): { store: PortalStore; indexer: AttemptIndexer; messages: MessageIndex } {
  mkdirSync(settings.storeDir, { recursive: true });
  const store = new PortalStore({
    path: join(settings.storeDir, 'portal-index.sqlite'),
    ...(settings.cacheBytes === undefined ? {} : { cacheBytes: settings.cacheBytes }),
  });
  const indexer = new AttemptIndexer(kafka, {
    store,
    log,
    ...(settings.indexSinceMs === undefined ? {} : { sinceMs: Date.now() - settings.indexSinceMs }),
  });
  return { store, indexer, messages: storeMessageIndex(store) };
}

/**
 * The portal's links followed from their topic, with the tenants' erasures applied to the index
 * as they come: started before the index reads the attempt log, so no erased message is indexed
 * again first.
 */
export async function openPortalLinks(
  kafka: KafkaConnection,
  store: PortalStore,
  log: LogFn,
): Promise<KafkaPortalLinks> {
  const links = new KafkaPortalLinks(kafka, log, {
    onErasure: (erasure) => {
      store.erase(erasure.tenant, erasure.at).then(
        (deleted) =>
          log('info', 'portal index: a tenant erased', { tenant: erasure.tenant, at: erasure.at, deleted }),
        (err: unknown) =>
          log('error', 'portal index: a tenant erasure failed; it is applied again at the next start', {
            tenant: erasure.tenant,
            error: err instanceof Error ? err.message : String(err),
          }),
      );
    },
  });
  await links.start();
  return links;
}

/** The portal's pages over the API's management service: they run the API's own operations as the link's tenant. */
export function openPortalPages(context: {
  readonly kafka: KafkaConnection;
  readonly links: KafkaPortalLinks;
  readonly service: ManagementService;
  readonly eventsTopic: string;
  readonly decoder: NoticeDecoder;
  readonly settings: PortalSettings;
  readonly log: LogFn;
}): PortalServer {
  const { service, settings } = context;
  const notices = new KafkaNoticeReader(context.kafka, context.eventsTopic, context.decoder);
  const backend: PortalBackend = {
    listSubscribers: (caller, page) => service.listSubscribers(caller, page),
    getSubscriber: (caller, name) => service.getSubscriber(caller, name),
    putSubscriber: (caller, name, body, ifMatch) => service.putSubscriber(caller, name, body, ifMatch),
    changeState: (caller, name, request) => service.changeState(caller, name, request),
    rotateSecret: (caller, name) => service.rotateSecret(caller, name),
    eventTypes: (caller) => service.eventTypes(caller),
    listMessages: (caller, query) =>
      service.listMessages(caller, {
        ...query,
        ...(query.subscribers === undefined ? {} : { subscribers: [...query.subscribers] }),
        ...(query.types === undefined ? {} : { types: [...query.types] }),
      }),
    getMessage: (caller, eventId, subscribers) =>
      service.getMessage(caller, eventId, subscribers === undefined ? {} : { subscribers }),
    messagePayload: (caller, eventId, subscribers) =>
      service.messagePayload(caller, eventId, subscribers === undefined ? {} : { subscribers }),
    resendMessage: (caller, request) => service.resendMessage(caller, request),
    sendExample: (caller, request) => service.sendExample(caller, request),
    recover: async (caller, request) => {
      const job = await service.recover(caller, {
        subscriber: request.subscriber,
        since: new Date(request.since),
      });
      return { jobId: job.id };
    },
    notices: (caller, limit) => notices.read(tenantOf(caller), limit),
    example: (schema) => exampleData(schema),
  };
  return new PortalServer({
    links: context.links.book,
    backend,
    frameAncestors: settings.frameAncestors,
    ...(settings.publicUrl === undefined ? {} : { publicOrigins: [settings.publicUrl] }),
    log: context.log,
  });
}

function tenantOf(caller: Caller): string {
  if (caller.scope.kind !== 'tenant') throw new ManagementError('forbidden', 'the portal serves one tenant');
  return caller.scope.tenant;
}
