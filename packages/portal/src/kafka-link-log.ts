import {
  isTenantErasureKey,
  type LogFn,
  PORTAL_LINKS_TOPIC,
  PortalLink,
  TenantErasure,
  tenantErasureKey,
} from '@hookstream/contracts';
import { type KafkaConnection, TopicFollower, type TopicSpec } from '@hookstream/kafka';
import { ensureOwnTopic, OwnTopicWriter } from '@hookstream/subscribers';
import { type LinkLog, PortalLinkBook } from './link-book.ts';

/** Compacted: the topic keeps each link's last record, and a tombstone removes it. */
export function portalLinksTopicSpec(replicationFactor: number): TopicSpec {
  return {
    topic: PORTAL_LINKS_TOPIC,
    partitions: 1,
    replicationFactor,
    config: { 'cleanup.policy': 'compact', 'retention.ms': '-1' },
  };
}

/**
 * The links topic as the book's log, and the follower that feeds every instance's book from it.
 * `start` resolves once every link written before it is known, so a restarted API refuses no
 * link it had minted. The topic also keeps tenants' erasures (TenantErasure), handed to
 * `onErasure` as they arrive, and at start every one there is, before any message is indexed.
 */
export class KafkaPortalLinks implements LinkLog {
  readonly book: PortalLinkBook;
  readonly #writer: OwnTopicWriter;
  readonly #follower: TopicFollower;
  readonly #kafka: KafkaConnection;

  readonly #onErasure: (erasure: TenantErasure) => void;
  readonly #now: () => number;

  constructor(
    kafka: KafkaConnection,
    log: LogFn,
    options: { readonly onErasure?: (erasure: TenantErasure) => void; readonly now?: () => number } = {},
  ) {
    const now = options.now ?? Date.now;
    this.#kafka = kafka;
    this.#now = now;
    this.#onErasure = options.onErasure ?? (() => undefined);
    this.book = new PortalLinkBook(this, now);
    this.#writer = new OwnTopicWriter(kafka, PORTAL_LINKS_TOPIC, {
      ensure: () => ensureOwnTopic(kafka, portalLinksTopicSpec),
    });
    this.#follower = new TopicFollower(kafka, {
      topic: PORTAL_LINKS_TOPIC,
      purpose: 'portal-links',
      onRecord: (r) => {
        if (r.key === null) return;
        if (isTenantErasureKey(r.key)) {
          const erasure = TenantErasure.safeParse(parseJson(r.value ?? Buffer.alloc(0)));
          if (erasure.success) this.#onErasure(erasure.data);
          else log('warn', 'tenant erasure record unreadable; skipped', { offset: r.offset, key: r.key });
          return;
        }
        if (r.value === null) {
          this.book.learn(r.key, null);
          return;
        }
        const parsed = PortalLink.safeParse(parseJson(r.value));
        if (parsed.success && parsed.data.id === r.key) this.book.learn(r.key, parsed.data);
        else log('warn', 'portal link record unreadable; skipped', { offset: r.offset, key: r.key });
      },
    });
  }

  async start(): Promise<void> {
    await ensureOwnTopic(this.#kafka, portalLinksTopicSpec);
    await this.#follower.start();
  }

  async stop(): Promise<void> {
    await this.#follower.stop();
  }

  async append(link: PortalLink): Promise<void> {
    await this.#writer.send([{ key: link.id, value: Buffer.from(JSON.stringify(link)), headers: {} }]);
  }

  /** Erases the tenant's messages from every index: written, then applied here at once. */
  async erase(tenant: string, by: string): Promise<TenantErasure> {
    const erasure: TenantErasure = { version: 1, tenant, at: new Date(this.#now()).toISOString(), by };
    await this.#writer.send([
      { key: tenantErasureKey(tenant), value: Buffer.from(JSON.stringify(erasure)), headers: {} },
    ]);
    this.#onErasure(erasure);
    return erasure;
  }

  async remove(id: string): Promise<void> {
    await this.#writer.send([{ key: id, value: null, headers: {} }]);
  }
}

function parseJson(value: Buffer): unknown {
  try {
    return JSON.parse(value.toString('utf8'));
  } catch {
    return null;
  }
}
