import { type KafkaClientOptions, newKafkaClient } from './client.ts';

export interface ClusterInfo {
  readonly clusterId: string;
  readonly controller: number | null;
  readonly brokers: readonly { readonly nodeId: number; readonly host: string; readonly port: number }[];
}

/**
 * Asks the cluster for its metadata once (and, with `groupCoordinator`, whether consumer groups
 * are served yet), so callers that poll for readiness decide the pace themselves. Resolves null
 * when no broker answers within timeoutMs. The deadline is enforced
 * here because kafkajs can still wait ~30 s on a socket that accepted the connection but never
 * answers (a broker half-way through start-up), whatever its own timeouts say.
 */
export async function probeCluster(
  target: Pick<KafkaClientOptions, 'brokers' | 'tls' | 'sasl'>,
  timeoutMs = 2000,
  options: { readonly groupCoordinator?: boolean } = {},
): Promise<ClusterInfo | null> {
  const kafka = newKafkaClient({
    ...target,
    clientId: 'hookstream-probe',
    connectionTimeoutMs: timeoutMs,
    requestTimeoutMs: timeoutMs,
    retries: 0,
    quiet: true,
  });
  const admin = kafka.admin();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  const ask = (async (): Promise<ClusterInfo | null> => {
    await admin.connect();
    const cluster = await admin.describeCluster();
    // A brand-new broker answers metadata before it can serve consumer groups: its first
    // coordinator lookup creates __consumer_offsets, and group requests fail until that is done.
    if (options.groupCoordinator) await admin.describeGroups(['hookstream.probe']);
    return {
      clusterId: cluster.clusterId,
      controller: cluster.controller,
      brokers: cluster.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })),
    };
  })().catch(() => null);
  try {
    return await Promise.race([ask, deadline]);
  } finally {
    clearTimeout(timer);
    // Not awaited: after a deadline the pending request would hold disconnect() up too.
    void ask.finally(() => admin.disconnect().catch(() => undefined));
  }
}
