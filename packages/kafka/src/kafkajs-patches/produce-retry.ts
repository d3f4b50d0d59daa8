import { createRequire } from 'node:module';
import { preloadModule } from './preload-module.ts';
import { groupMessagesPerPartition } from './produce-grouping.ts';
import { SendProgress, type TopicAnswer, type TopicData } from './send-progress.ts';

const require = createRequire(import.meta.url);

/**
 * kafkajs's own test for errors that mean the metadata is out of date, and its error for a topic
 * without metadata; required at the first send, not at import, so nothing of kafkajs loads before
 * the patches that must come first (install.ts).
 */
function internals() {
  const { staleMetadata } = require('kafkajs/src/protocol/error.js') as {
    staleMetadata(e: unknown): boolean;
  };
  const { KafkaJSMetadataNotLoaded } = require('kafkajs/src/errors.js') as {
    KafkaJSMetadataNotLoaded: new (message: string) => Error;
  };
  return { staleMetadata, KafkaJSMetadataNotLoaded };
}

/** Where a Produce error keeps the broker's decoded answer (`keepAnswerOnParseError`). */
const ANSWER = Symbol.for('hookstream.kafkajs.produceAnswer');
const WRAPPED = Symbol.for('hookstream.kafkajs.produceParseWrapped');
const PRODUCE_VERSIONS = [0, 1, 2, 3, 4, 5, 6, 7];

interface SendError extends Error {
  readonly retriable?: boolean;
  readonly host?: string;
  readonly port?: number;
  [ANSWER]?: { readonly topics: readonly TopicAnswer[] };
}

/** A broker as kafkajs's `sendMessages` uses it. */
export interface ProduceBroker {
  readonly nodeId: number;
  produce(request: object): Promise<{ readonly topics: readonly TopicAnswer[] } | undefined>;
}

/** The cluster, as kafkajs's `sendMessages` (2.2.4) uses it. */
export interface SendCluster {
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): readonly unknown[];
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string }): Promise<ProduceBroker>;
  removeBroker(args: { host?: string | undefined; port?: number | undefined }): void;
  isConnected(): boolean;
  connect(): Promise<void>;
}

/** kafkajs's idempotence and transaction state (producer/eosManager). */
export interface SendEosManager {
  acquireBrokerLock(broker: ProduceBroker): Promise<void>;
  releaseBrokerLock(broker: ProduceBroker): Promise<void>;
  isTransactional(): boolean;
  addPartitionsToTransaction(topicData: readonly TopicData<unknown>[]): Promise<void>;
  getTransactionalId(): string;
  getProducerId(): number;
  getProducerEpoch(): number;
  getSequence(topic: string, partition: number): number;
  updateSequence(topic: string, partition: number, increment: number): void;
}

export type SendRetrier = <T>(
  attempt: (bail: (e: Error) => void, retryCount: number, retryTime: number) => Promise<T>,
) => Promise<T>;

export interface SendMessagesDeps<M> {
  readonly logger: {
    error(message: string, extra?: object): void;
    debug(message: string, extra?: object): void;
  };
  readonly cluster: SendCluster;
  readonly partitioner: (args: {
    topic: string;
    partitionMetadata: readonly unknown[];
    message: M;
  }) => number;
  readonly eosManager: SendEosManager;
  readonly retrier: SendRetrier;
}

export interface SendArgs<M> {
  readonly acks: number;
  readonly timeout?: number;
  readonly compression?: number;
  readonly topicMessages: readonly { readonly topic: string; readonly messages: readonly M[] }[];
}

/**
 * kafkajs 2.2.4's `sendMessages`, with one change of behaviour: a retry sends only the
 * partitions not yet written. kafkajs kept a broker's answer only when every partition in it
 * succeeded (the Produce parse throws at the first failed one), so one partition without a leader
 * made its retry write that broker's other partitions a second time; it also sent again whatever
 * a broker still had on the wire when another broker failed. Here each partition is settled from
 * the answer itself (`keepAnswerOnParseError`), every broker's request ends before a retry, and a
 * message keeps the partition it was first given. The rest (locks, sequences, transactions,
 * metadata refresh, retriable errors) is kafkajs's own.
 */
export function createSendMessages<M>(deps: SendMessagesDeps<M>) {
  const { logger, cluster, retrier } = deps;
  return async (args: SendArgs<M>) => {
    const progress = new SendProgress<M>();
    const topics = args.topicMessages.map((t) => t.topic);
    return retrier(async (bail, retryCount, retryTime) => {
      await cluster.addMultipleTargetTopics(topics);
      try {
        await cluster.refreshMetadataIfNecessary();
        const perBroker = await pendingPerBroker(deps, args, progress);
        const outcomes = await Promise.allSettled(
          [...perBroker].map(([broker, topicData]) => produceOn(deps, args, progress, broker, topicData)),
        );
        const failed = outcomes.find((o) => o.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
        if (progress.unsent() > 0)
          throw new (internals().KafkaJSMetadataNotLoaded)(
            'a partition of the send has no leader in the metadata',
          );
        return progress.answers();
      } catch (err) {
        const e = err as SendError;
        if (e.name === 'KafkaJSConnectionClosedError') cluster.removeBroker({ host: e.host, port: e.port });
        if (!cluster.isConnected()) {
          logger.debug(`Cluster has disconnected, reconnecting: ${e.message}`, { retryCount, retryTime });
          await cluster.connect();
          await cluster.refreshMetadata();
          throw e;
        }
        if (needsMetadata(e)) {
          logger.error(`Failed to send messages: ${e.message}`, { retryCount, retryTime });
          await cluster.refreshMetadata();
          throw e;
        }
        logger.error(`${e.message}`, { retryCount, retryTime });
        if (e.retriable) throw e;
        bail(e);
        return [];
      }
    });
  };
}

function needsMetadata(e: SendError): boolean {
  return (
    internals().staleMetadata(e) ||
    e.name === 'KafkaJSMetadataNotLoaded' ||
    e.name === 'KafkaJSConnectionError' ||
    e.name === 'KafkaJSConnectionClosedError' ||
    (e.name === 'KafkaJSProtocolError' && e.retriable === true)
  );
}

/** The partitions still to write, by the broker that leads them now. */
async function pendingPerBroker<M>(
  { cluster, partitioner }: SendMessagesDeps<M>,
  { topicMessages }: SendArgs<M>,
  progress: SendProgress<M>,
): Promise<Map<ProduceBroker, TopicData<M>[]>> {
  const perBroker = new Map<ProduceBroker, TopicData<M>[]>();
  for (const { topic, messages } of topicMessages) {
    const partitionMetadata = cluster.findTopicPartitionMetadata(topic);
    if (partitionMetadata.length === 0)
      throw new (internals().KafkaJSMetadataNotLoaded)('Producing to topic without metadata');
    progress.assign(topic, () =>
      groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner }),
    );
    const leaders = cluster.findLeaderForPartitions(topic, progress.pending(topic));
    for (const [nodeId, partitions] of Object.entries(leaders)) {
      const broker = await cluster.findBroker({ nodeId });
      const list = perBroker.get(broker) ?? [];
      list.push(progress.topicData(topic, partitions));
      perBroker.set(broker, list);
    }
  }
  return perBroker;
}

/** One Produce request; what the broker wrote is settled even when the request fails. */
async function produceOn<M>(
  { eosManager }: SendMessagesDeps<M>,
  { acks, timeout, compression }: SendArgs<M>,
  progress: SendProgress<M>,
  broker: ProduceBroker,
  topicData: TopicData<M>[],
): Promise<void> {
  await eosManager.acquireBrokerLock(broker);
  try {
    if (eosManager.isTransactional()) await eosManager.addPartitionsToTransaction(topicData);
    for (const { topic, partitions } of topicData)
      for (const entry of partitions) {
        entry.firstSequence = eosManager.getSequence(topic, entry.partition);
        eosManager.updateSequence(topic, entry.partition, entry.messages.length);
      }
    let answer: { readonly topics: readonly TopicAnswer[] } | undefined;
    try {
      answer = await broker.produce({
        transactionalId: eosManager.isTransactional() ? eosManager.getTransactionalId() : undefined,
        producerId: eosManager.getProducerId(),
        producerEpoch: eosManager.getProducerEpoch(),
        acks,
        timeout,
        compression,
        topicData,
      });
    } catch (err) {
      progress.settleAnswered((err as SendError)[ANSWER]?.topics ?? []);
      for (const { topic, partitions } of topicData)
        for (const entry of partitions)
          if (!progress.isWritten(topic, entry.partition))
            eosManager.updateSequence(topic, entry.partition, -entry.messages.length);
      throw err;
    }
    progress.settleSent(topicData, acks === 0 ? undefined : answer?.topics);
  } finally {
    await eosManager.releaseBrokerLock(broker);
  }
}

/**
 * Each Produce response version's parse still throws at the first failed partition, as
 * kafkajs's callers expect; the error now carries the decoded answer, so the send can tell the
 * partitions written from those that failed. Patched on every version's module, since v1, v2
 * and v4-v7 hold v0's or v3's parse under their own export.
 */
function keepAnswerOnParseError(): void {
  for (const v of PRODUCE_VERSIONS) {
    const mod = require(`kafkajs/src/protocol/requests/produce/v${v}/response.js`) as {
      parse: ((data: { topics: readonly TopicAnswer[] }) => Promise<unknown>) & { [WRAPPED]?: true };
    };
    if (mod.parse[WRAPPED] === true) continue;
    const parse = mod.parse;
    const wrapped = Object.assign(
      async (data: { topics: readonly TopicAnswer[] }) => {
        try {
          return await parse(data);
        } catch (err) {
          if (err instanceof Error) (err as SendError)[ANSWER] = data;
          throw err;
        }
      },
      { [WRAPPED]: true as const },
    );
    mod.parse = wrapped;
  }
}

/** The module replaced. */
export function kafkajsSendMessagesPath(): string {
  return require.resolve('kafkajs/src/producer/sendMessages.js');
}

/**
 * Makes kafkajs's producers send with `createSendMessages`. The producer captures `sendMessages`
 * when it loads, so this must be in Node's module cache first; false when it was too late.
 */
export function patchKafkajsProduceRetry(): boolean {
  keepAnswerOnParseError();
  return preloadModule(
    kafkajsSendMessagesPath(),
    [require.resolve('kafkajs/src/producer/messageProducer.js')],
    createSendMessages,
  );
}
