import { KafkaComponent, newClusterId } from './components/kafka.ts';
import type { StackConfig } from './config.ts';
import type { Reporter } from './progress.ts';
import { stackDown, stackUp } from './stack.ts';

export interface KafkaClusterOptions {
  /** Folders and cache; its Kafka ports are ignored in favour of basePort. */
  readonly config: StackConfig;
  readonly size: number;
  /** Node i (1-based) listens on basePort + 2(i-1) and its controller on the port after. */
  readonly basePort: number;
  readonly minInSyncReplicas: number;
  readonly report: Reporter;
}

/**
 * A multi-node KRaft cluster on one machine (separate ports and log folders, one cluster id),
 * for replication fault tests: every node is broker and controller, internal topics are
 * replicated to every node.
 */
export class KafkaCluster {
  readonly nodes: readonly KafkaComponent[];
  readonly brokers: readonly string[];
  readonly #options: KafkaClusterOptions;

  constructor(options: KafkaClusterOptions) {
    this.#options = options;
    const { config, size, basePort } = options;
    const clusterId = newClusterId();
    const portOf = (i: number) => basePort + 2 * (i - 1);
    const ids = Array.from({ length: size }, (_, i) => i + 1);
    const voters = ids.map((i) => `${i}@${config.host}:${portOf(i) + 1}`).join(',');
    this.nodes = ids.map(
      (i) =>
        new KafkaComponent(config, {
          name: `kafka-${i}`,
          nodeId: i,
          port: portOf(i),
          controllerPort: portOf(i) + 1,
          voters,
          clusterId,
          replicationFactor: size,
          minInSyncReplicas: options.minInSyncReplicas,
          heap: '512m',
        }),
    );
    this.brokers = this.nodes.map((n) => n.endpoints.bootstrap ?? '');
  }

  /** Starts every node (or the named ones) and waits until each answers metadata requests. */
  async start(names?: readonly string[]): Promise<void> {
    // One download for all nodes: they share the cache folder.
    await this.nodes[0]?.install(this.#options.report);
    await stackUp({ ...this.#common(), ...(names ? { only: names } : {}) });
  }

  /** Stops nodes: gracefully, or with SIGKILL when `kill` is set (a crash). */
  async stop(names?: readonly string[], kill = false): Promise<void> {
    await stackDown({ ...this.#common(), ...(names ? { only: names } : {}), graceMs: kill ? 0 : 30_000 });
  }

  #common() {
    return { config: this.#options.config, report: this.#options.report, components: this.nodes };
  }
}
