import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import '../../src/index.ts';
import {
  type BrokerLike,
  type ClusterLike,
  createSendMessages,
  type EosManagerLike,
  kafkajsSendMessagesPath,
  type PartitionAnswer,
  type Retrier,
  type SendMessagesDeps,
} from '../../src/kafkajs-patches/produce-retry.ts';
import { kafkajsOriginal } from './kafkajs-original.ts';

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require('kafkajs/src/protocol/error.js') as {
  createErrorFromCode(code: number): Error;
};

const TOPIC = 't';
const NOT_LEADER = 6;
const MESSAGE_TOO_LARGE = 10;

interface Message {
  readonly key: string;
}
interface SentPartition {
  readonly partition: number;
  readonly messages: readonly Message[];
  readonly firstSequence?: number;
}
interface Sent {
  readonly nodeId: number;
  readonly partitions: readonly SentPartition[];
}
/**
 * What a fake broker answers one request: an error code per partition (-1: left out of the
 * answer), or a whole-request failure.
 */
type Script = (sent: Sent, attempt: number) => Record<number, number> | Error;

/**
 * A cluster of fake brokers. `leaders` gives each partition's leader (-1: none) and may change
 * when kafkajs refreshes the metadata. Each broker answers as a real one, decoded; the response's
 * parse throws at the first failed partition, as kafkajs's Produce response parse does.
 */
function fakeCluster(leadersAt: (refreshes: number) => number[], script: Script) {
  const sent: Sent[] = [];
  /** How many times the brokers wrote each record (by key). */
  const written = new Map<string, number>();
  const offsets = new Map<number, number>();
  let refreshes = 0;
  const answer = (s: Sent, codes: Record<number, number>) => ({
    topics: [
      {
        topicName: TOPIC,
        partitions: s.partitions.flatMap(({ partition, messages }): PartitionAnswer[] => {
          const errorCode = codes[partition] ?? 0;
          const base = offsets.get(partition) ?? 0;
          if (errorCode === -1) return [];
          if (errorCode !== 0) return [{ partition, errorCode, baseOffset: '-1' }];
          offsets.set(partition, base + messages.length);
          for (const m of messages) written.set(m.key, (written.get(m.key) ?? 0) + 1);
          return [{ partition, errorCode, baseOffset: String(base) }];
        }),
      },
    ],
  });
  // kafkajs hands the parse whatever the connection decoded; here, always an answer.
  const kafkajsParse = async (decoded: unknown) => {
    const data = decoded as ReturnType<typeof answer>;
    const failed = data.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0);
    if (failed !== undefined) throw createErrorFromCode(failed.errorCode);
    return data;
  };
  const broker = (nodeId: number): BrokerLike & { produce(args: object): Promise<unknown> } => {
    const b = {
      nodeId,
      lookupRequest: () => (args: object) => ({ request: args, response: { parse: kafkajsParse } }),
      connectionPool: {
        send: async (req: { request?: unknown; response: { parse: (d: never) => Promise<unknown> } }) => {
          const { topicData } = req.request as { topicData: { partitions: SentPartition[] }[] };
          const s: Sent = {
            nodeId,
            partitions: (topicData[0]?.partitions ?? []).map((p) => ({ ...p, messages: [...p.messages] })),
          };
          sent.push(s);
          const codes = script(s, sent.filter((x) => x.nodeId === nodeId).length - 1);
          if (codes instanceof Error) throw codes;
          return req.response.parse(answer(s, codes) as never);
        },
      },
      disconnect: async () => {},
      // kafkajs's own Broker.produce: the same request, parsed by kafkajs.
      produce: (args: object) => b.connectionPool.send(b.lookupRequest()(args)),
    };
    return b;
  };
  const brokers = new Map([1, 2].map((id) => [id, broker(id)]));
  const cluster: ClusterLike = {
    targetTopics: new Set([TOPIC]),
    refreshMetadataIfNecessary: async () => {},
    refreshMetadata: async () => void refreshes++,
    findTopicPartitionMetadata: () =>
      leadersAt(refreshes).map((leader, partitionId) => ({ partitionId, leader })),
    findLeaderForPartitions: (_topic, ids) => {
      const leaders = leadersAt(refreshes);
      const result: Record<string, number[]> = {};
      for (const id of ids.map(Number)) {
        const leader = leaders[id];
        if (leader !== undefined) result[leader] = [...(result[leader] ?? []), id];
      }
      return result;
    },
    findBroker: async ({ nodeId }) => {
      const b = brokers.get(Number(nodeId));
      if (b === undefined) throw new Error(`no broker ${nodeId}`);
      return b;
    },
    addMultipleTargetTopics: async () => {},
    isConnected: () => true,
    connect: async () => {},
    removeBroker: () => {},
  };
  return { cluster, sent, written };
}

/** kafkajs's retrier without the clock: attempts at once, up to `retries` more. */
function retrier(retries: number): Retrier {
  return async (attempt) => {
    for (let n = 0; ; n++) {
      let bailed: Error | undefined;
      const bail = (e: Error) => {
        bailed = e;
      };
      try {
        const result = await attempt(bail, n, 0);
        if (bailed !== undefined) throw bailed;
        return result;
      } catch (e) {
        if (bailed !== undefined || n >= retries || (e as { retriable?: boolean }).retriable === false)
          throw e;
      }
    }
  };
}

function sequences(): EosManagerLike & { of: Map<number, number> } {
  const of = new Map<number, number>();
  return {
    of,
    isTransactional: () => false,
    addPartitionsToTransaction: async () => {},
    getSequence: (_t, p) => of.get(p) ?? 0,
    updateSequence: (_t, p, n) => void of.set(p, (of.get(p) ?? 0) + n),
    acquireBrokerLock: async () => {},
    releaseBrokerLock: async () => {},
    getTransactionalId: () => '',
    getProducerId: () => -1,
    getProducerEpoch: () => 0,
  };
}

const messages = (n: number): Message[] => Array.from({ length: n }, (_, i) => ({ key: String(i) }));
const byKey: SendMessagesDeps<Message>['partitioner'] = ({ message, partitionMetadata }) =>
  Number(message.key) % partitionMetadata.length;

function deps(cluster: ClusterLike, retries = 3, eosManager = sequences()): SendMessagesDeps<Message> {
  return {
    logger: { debug: () => {}, error: () => {} },
    cluster,
    partitioner: byKey,
    eosManager,
    retrier: retrier(retries),
  };
}

const send = (d: SendMessagesDeps<Message>, n = 8) =>
  createSendMessages(d)({
    acks: -1,
    timeout: 1000,
    topicMessages: [{ topic: TOPIC, messages: messages(n) }],
  });

const partitionsOf = (s: Sent | undefined) => s?.partitions.map((p) => p.partition);
const oneBroker = () => [1, 1, 1, 1];
const failOnce =
  (partition: number, code = NOT_LEADER): Script =>
  (_s, attempt) =>
    attempt === 0 ? { [partition]: code } : {};

describe('produce-retry: a send retries only the partitions not written yet', () => {
  it('is the module kafkajs loads', () => {
    expect(require(kafkajsSendMessagesPath())).toBe(createSendMessages);
  });

  it("kafkajs's own sendMessages sends a broker's written partitions again when one failed (the cause)", async () => {
    const { cluster, sent, written } = fakeCluster(oneBroker, failOnce(2));
    const original = kafkajsOriginal<typeof createSendMessages<Message>>(kafkajsSendMessagesPath());
    await original(deps(cluster))({
      acks: -1,
      timeout: 1000,
      topicMessages: [{ topic: TOPIC, messages: messages(8) }],
    });
    expect(sent.map(partitionsOf)).toEqual([
      [0, 1, 2, 3],
      [0, 1, 2, 3],
    ]);
    expect([...written].filter(([, n]) => n > 1)).toHaveLength(6);
  });

  it('resends only the failed partition, and answers each partition once with the offset it was written at', async () => {
    const { cluster, sent, written } = fakeCluster(oneBroker, failOnce(2));
    const results = (await send(deps(cluster))) ?? [];
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2, 3], [2]]);
    expect([...written.values()]).toEqual(Array(8).fill(1));
    expect(results.map((r) => [r.partition, r.baseOffset]).sort()).toEqual([
      [0, '0'],
      [1, '0'],
      [2, '0'],
      [3, '0'],
    ]);
  });

  it('writes the partitions that have a leader and sends the leaderless one once the metadata names its leader', async () => {
    const leaders = (refreshes: number) => [1, 1, 1, refreshes === 0 ? -1 : 1];
    const { cluster, sent } = fakeCluster(leaders, () => ({}));
    const results = await send(deps(cluster));
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2], [3]]);
    expect(results).toHaveLength(4);
  });

  it("keeps one broker's written partitions when another broker's request fails as a whole", async () => {
    const leaders = () => [1, 2, 1, 2];
    const { cluster, sent } = fakeCluster(leaders, (s, attempt) =>
      s.nodeId === 2 && attempt === 0 ? createErrorFromCode(NOT_LEADER) : {},
    );
    await send(deps(cluster));
    expect(sent.map((s) => [s.nodeId, partitionsOf(s)])).toEqual([
      [1, [0, 2]],
      [2, [1, 3]],
      [2, [1, 3]],
    ]);
  });

  it('fails on a partition error retrying cannot help, without sending the written partitions again', async () => {
    const { cluster, sent } = fakeCluster(oneBroker, failOnce(1, MESSAGE_TOO_LARGE));
    await expect(send(deps(cluster))).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
    expect(sent).toHaveLength(1);
  });

  it("fails after its retries with the last partition's error, having written each other record once", async () => {
    const { cluster, sent } = fakeCluster(oneBroker, () => ({ 3: NOT_LEADER }));
    await expect(send(deps(cluster, 2))).rejects.toMatchObject({ type: 'NOT_LEADER_FOR_PARTITION' });
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2, 3], [3], [3]]);
  });

  it('sends again a partition the answer left out: nothing says it was written', async () => {
    const { cluster, sent } = fakeCluster(oneBroker, failOnce(1, -1));
    const results = await send(deps(cluster));
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2, 3], [1]]);
    expect(results).toHaveLength(4);
  });

  it('answers nothing with acks=0, and sends each partition once', async () => {
    const { cluster, sent } = fakeCluster(oneBroker, () => ({}));
    const results = await createSendMessages(deps(cluster))({
      acks: 0,
      topicMessages: [{ topic: TOPIC, messages: messages(8) }],
    });
    expect(results).toEqual([]);
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2, 3]]);
  });

  it("hands back a failed partition's sequence and keeps a written one's (an idempotent producer's retry)", async () => {
    const eos = sequences();
    const { cluster, sent } = fakeCluster(oneBroker, failOnce(2));
    await send(deps(cluster, 3, eos));
    expect([...eos.of].sort()).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
      [3, 2],
    ]);
    expect(sent[1]?.partitions[0]?.firstSequence).toBe(0);
  });

  it('groups the records once: the partitioner runs once per record, whatever the retries', async () => {
    let calls = 0;
    const roundRobin: SendMessagesDeps<Message>['partitioner'] = ({ partitionMetadata }) =>
      calls++ % partitionMetadata.length;
    const { cluster, sent } = fakeCluster(oneBroker, failOnce(0));
    await send({ ...deps(cluster), partitioner: roundRobin });
    expect(calls).toBe(8);
    expect(sent[1]?.partitions[0]?.messages).toEqual(sent[0]?.partitions[0]?.messages);
  });
});
