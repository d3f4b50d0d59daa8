import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import '../../src/index.ts';
import {
  createSendMessages,
  kafkajsSendMessagesPath,
  type ProduceBroker,
  type SendCluster,
  type SendEosManager,
  type SendMessagesDeps,
  type SendRetrier,
} from '../../src/kafkajs-patches/produce-retry.ts';
import type { TopicAnswer, TopicData } from '../../src/kafkajs-patches/send-progress.ts';
import { kafkajsOriginal } from './kafkajs-original.ts';

const require = createRequire(import.meta.url);
const errors = require('kafkajs/src/errors.js') as { KafkaJSBrokerNotFound: new (m: string) => Error };
const { createErrorFromCode } = require('kafkajs/src/protocol/error.js') as {
  createErrorFromCode(code: number): Error;
};
/** kafkajs's own Produce v3 answer parse, as the patch leaves it: throws at the first failed partition. */
const { parse } = require('kafkajs/src/protocol/requests/produce/v3/response.js') as {
  parse(data: { topics: TopicAnswer[] }): Promise<{ topics: TopicAnswer[] }>;
};

const TOPIC = 't';
const NOT_LEADER = 6;
const MESSAGE_TOO_LARGE = 10;

interface Message {
  readonly key: string;
}
interface Sent {
  readonly nodeId: number;
  readonly partitions: readonly { partition: number; keys: string[]; firstSequence?: number | undefined }[];
}
/** What a fake broker answers its nth request: an error code per partition, or a failed request. */
type Script = (sent: Sent, nth: number) => Record<number, number> | Error;

/**
 * Brokers that write what they are sent unless the script says otherwise, and answer through
 * kafkajs's own parse. `leadersAt` gives each partition's leader (-1: none) after n refreshes.
 */
function fakeCluster(leadersAt: (refreshes: number) => number[], script: Script) {
  const sent: Sent[] = [];
  const written = new Map<string, number>();
  const offsets = new Map<number, number>();
  let refreshes = 0;
  const broker = (nodeId: number): ProduceBroker => ({
    nodeId,
    produce: async (request) => {
      const [topicData] = (request as { topicData: TopicData<Message>[] }).topicData;
      const s: Sent = {
        nodeId,
        partitions: (topicData?.partitions ?? []).map((p) => ({
          partition: p.partition,
          keys: p.messages.map((m) => m.key),
          firstSequence: p.firstSequence,
        })),
      };
      sent.push(s);
      const codes = script(s, sent.filter((x) => x.nodeId === nodeId).length - 1);
      if (codes instanceof Error) throw codes;
      const partitions = s.partitions.map(({ partition, keys }) => {
        const errorCode = codes[partition] ?? 0;
        if (errorCode !== 0) return { partition, errorCode, baseOffset: '-1' };
        const base = offsets.get(partition) ?? 0;
        offsets.set(partition, base + keys.length);
        for (const k of keys) written.set(k, (written.get(k) ?? 0) + 1);
        return { partition, errorCode, baseOffset: String(base) };
      });
      return parse({ topics: [{ topicName: TOPIC, partitions }] });
    },
  });
  const brokers = new Map([1, 2].map((id) => [id, broker(id)]));
  const cluster: SendCluster = {
    addMultipleTargetTopics: async () => {},
    refreshMetadataIfNecessary: async () => {},
    refreshMetadata: async () => void refreshes++,
    findTopicPartitionMetadata: () =>
      leadersAt(refreshes).map((leader, partitionId) => ({ partitionId, leader })),
    findLeaderForPartitions: (_topic, ids) => {
      const result: Record<string, number[]> = {};
      for (const id of ids.map(Number)) {
        const leader = leadersAt(refreshes)[id];
        if (leader !== undefined) result[leader] = [...(result[leader] ?? []), id];
      }
      return result;
    },
    findBroker: async ({ nodeId }) => {
      const b = brokers.get(Number(nodeId));
      if (b === undefined) throw new errors.KafkaJSBrokerNotFound(`no broker ${nodeId}`);
      return b;
    },
    removeBroker: () => {},
    isConnected: () => true,
    connect: async () => {},
  };
  return { cluster, sent, written };
}

/** kafkajs's retrier without its clock: attempts at once, up to `retries` more. */
function retrier(retries: number): SendRetrier {
  return async (attempt) => {
    for (let n = 0; ; n++) {
      let bailed: Error | undefined;
      try {
        const result = await attempt(
          (e) => {
            bailed = e;
          },
          n,
          0,
        );
        if (bailed !== undefined) throw bailed;
        return result;
      } catch (e) {
        if (bailed !== undefined || n >= retries || (e as { retriable?: boolean }).retriable === false)
          throw e;
      }
    }
  };
}

function sequences(): SendEosManager & { of: Map<number, number> } {
  const of = new Map<number, number>();
  return {
    of,
    acquireBrokerLock: async () => {},
    releaseBrokerLock: async () => {},
    isTransactional: () => false,
    addPartitionsToTransaction: async () => {},
    getTransactionalId: () => '',
    getProducerId: () => -1,
    getProducerEpoch: () => 0,
    getSequence: (_t, p) => of.get(p) ?? 0,
    updateSequence: (_t, p, n) => void of.set(p, (of.get(p) ?? 0) + n),
  };
}

const byKey: SendMessagesDeps<Message>['partitioner'] = ({ message, partitionMetadata }) =>
  Number(message.key) % partitionMetadata.length;

function deps(cluster: SendCluster, retries = 3, eosManager = sequences()): SendMessagesDeps<Message> {
  return {
    logger: { debug: () => {}, error: () => {} },
    cluster,
    partitioner: byKey,
    eosManager,
    retrier: retrier(retries),
  };
}

const eight = {
  acks: -1,
  timeout: 1000,
  topicMessages: [{ topic: TOPIC, messages: [...'01234567'].map((key) => ({ key })) }],
};
const partitionsOf = (s: Sent) => s.partitions.map((p) => p.partition);
const oneBroker = () => [1, 1, 1, 1];
const failFirst =
  (partition: number, code = NOT_LEADER): Script =>
  (_s, nth) =>
    nth === 0 ? { [partition]: code } : {};
const twice = (written: Map<string, number>) => [...written].filter(([, n]) => n > 1).map(([k]) => k);

describe('produce-retry: a send retries only the partitions not written yet', () => {
  it('is the sendMessages kafkajs loads', () => {
    expect(require(kafkajsSendMessagesPath())).toBe(createSendMessages);
  });

  it("kafkajs's own sendMessages writes a broker's other partitions again when one failed (the cause)", async () => {
    const { cluster, sent, written } = fakeCluster(oneBroker, failFirst(2));
    const original = kafkajsOriginal<typeof createSendMessages<Message>>(kafkajsSendMessagesPath());
    await original(deps(cluster))(eight);
    expect(sent.map(partitionsOf)).toEqual([
      [0, 1, 2, 3],
      [0, 1, 2, 3],
    ]);
    expect(twice(written)).toEqual(['0', '4', '1', '5', '3', '7']);
  });

  it('resends only the failed partition, and answers each partition once with where it was written', async () => {
    const { cluster, sent, written } = fakeCluster(oneBroker, failFirst(2));
    const answers = await createSendMessages(deps(cluster))(eight);
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2, 3], [2]]);
    expect(twice(written)).toEqual([]);
    expect(answers.map((a) => [a.topicName, a.partition, a.baseOffset]).sort()).toEqual([
      [TOPIC, 0, '0'],
      [TOPIC, 1, '0'],
      [TOPIC, 2, '0'],
      [TOPIC, 3, '0'],
    ]);
  });

  it("keeps one broker's written partitions when another broker's request fails as a whole", async () => {
    const { cluster, sent, written } = fakeCluster(
      () => [1, 2, 1, 2],
      (s, nth) => (s.nodeId === 2 && nth === 0 ? createErrorFromCode(NOT_LEADER) : {}),
    );
    await createSendMessages(deps(cluster))(eight);
    expect(sent.map((s) => [s.nodeId, partitionsOf(s)])).toEqual([
      [1, [0, 2]],
      [2, [1, 3]],
      [2, [1, 3]],
    ]);
    expect(twice(written)).toEqual([]);
  });

  it("sends a partition without a leader once the metadata names one, and the others' records once", async () => {
    const { cluster, sent, written } = fakeCluster(
      (refreshes) => [1, 1, 1, refreshes === 0 ? 2 : 1],
      (s) => (s.nodeId === 2 ? { 3: NOT_LEADER } : {}),
    );
    await createSendMessages(deps(cluster))(eight);
    expect(sent.map((s) => [s.nodeId, partitionsOf(s)])).toEqual([
      [1, [0, 1, 2]],
      [2, [3]],
      [1, [3]],
    ]);
    expect(written.size).toBe(8);
    expect(twice(written)).toEqual([]);
  });

  it('fails on a partition error retrying cannot help, without sending the written partitions again', async () => {
    const { cluster, sent } = fakeCluster(oneBroker, failFirst(1, MESSAGE_TOO_LARGE));
    await expect(createSendMessages(deps(cluster))(eight)).rejects.toMatchObject({
      type: 'MESSAGE_TOO_LARGE',
    });
    expect(sent).toHaveLength(1);
  });

  it('fails once its retries run out, having sent only the failing partition again', async () => {
    const { cluster, sent } = fakeCluster(oneBroker, () => ({ 3: NOT_LEADER }));
    await expect(createSendMessages(deps(cluster, 2))(eight)).rejects.toMatchObject({
      type: 'NOT_LEADER_FOR_PARTITION',
    });
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2, 3], [3], [3]]);
  });

  it('answers nothing with acks=0, and sends each partition once', async () => {
    const { cluster, sent } = fakeCluster(oneBroker, () => ({}));
    const quiet: ProduceBroker = {
      nodeId: 1,
      produce: async (r) => void (await (await cluster.findBroker({ nodeId: '1' })).produce(r)),
    };
    const answers = await createSendMessages(deps({ ...cluster, findBroker: async () => quiet }))({
      ...eight,
      acks: 0,
    });
    expect(answers).toEqual([]);
    expect(sent.map(partitionsOf)).toEqual([[0, 1, 2, 3]]);
  });

  it("gives back a failed partition's sequence and keeps a written one's (an idempotent producer's retry)", async () => {
    const eos = sequences();
    const { cluster, sent } = fakeCluster(oneBroker, failFirst(2));
    await createSendMessages(deps(cluster, 3, eos))(eight);
    expect([...eos.of].sort()).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
      [3, 2],
    ]);
    expect(sent[1]?.partitions[0]?.firstSequence).toBe(0);
  });

  it('groups the records once: a retry cannot move a record to another partition', async () => {
    let calls = 0;
    const roundRobin: SendMessagesDeps<Message>['partitioner'] = ({ partitionMetadata }) =>
      calls++ % partitionMetadata.length;
    const { cluster, sent } = fakeCluster(oneBroker, failFirst(0));
    await createSendMessages({ ...deps(cluster), partitioner: roundRobin })(eight);
    expect(calls).toBe(8);
    expect(sent[1]?.partitions[0]?.keys).toEqual(sent[0]?.partitions[0]?.keys);
  });
});
