import { createRequire } from 'node:module';
import { preloadModule } from './preload-module.ts';
import { groupMessagesPerPartition } from './produce-grouping.ts';

const require = createRequire(import.meta.url);

interface KafkajsInternals {
  readonly produceKey: number;
  readonly produceRequest: unknown;
  readonly errors: ProtocolErrors;
  readonly KafkaJSError: new (message: string) => Error;
  readonly KafkaJSMetadataNotLoaded: new (message: string) => Error;
}

let loaded: KafkajsInternals | undefined;

/**
 * kafkajs's modules this send uses, loaded at the first send, not at import: the protocol's
 * modules load the batch decoder, which the record-decoder patch must precede.
 */
function kafkajs(): KafkajsInternals {
  loaded ??= {
    produceKey: (require('kafkajs/src/protocol/requests/apiKeys.js') as { Produce: number }).Produce,
    produceRequest: (require('kafkajs/src/protocol/requests/index.js') as { requests: { Produce: unknown } })
      .requests.Produce,
    errors: require('kafkajs/src/protocol/error.js') as ProtocolErrors,
    ...(require('kafkajs/src/errors.js') as Pick<
      KafkajsInternals,
      'KafkaJSError' | 'KafkaJSMetadataNotLoaded'
    >),
  };
  return loaded;
}

interface KafkajsErrorLike extends Error {
  readonly retriable?: boolean;
  readonly host?: string;
  readonly port?: number;
}

interface ProtocolErrors {
  createErrorFromCode(code: number): KafkajsErrorLike;
  staleMetadata(e: unknown): boolean;
}

/** LEADER_NOT_AVAILABLE: what a partition without a leader in the metadata is told as. */
const LEADER_NOT_AVAILABLE = 5;

/** One partition's answer to a Produce request, as kafkajs decodes it. */
export interface PartitionAnswer {
  readonly partition: number;
  readonly errorCode: number;
  readonly baseOffset?: string;
  readonly offset?: string;
  readonly [field: string]: unknown;
}

interface ProduceAnswer {
  readonly topics: readonly { readonly topicName: string; readonly partitions: readonly PartitionAnswer[] }[];
}

/** A protocol request as kafkajs's lookup builds it: the encoder and the response's decode/parse. */
interface ProtocolRequest {
  readonly response: { readonly parse: (data: unknown) => Promise<unknown> };
  readonly [field: string]: unknown;
}

export interface BrokerLike {
  readonly nodeId: number;
  lookupRequest(apiKey: number, definition: unknown): (args: object) => ProtocolRequest;
  readonly connectionPool: { send(request: ProtocolRequest): Promise<unknown> };
  disconnect(): Promise<void>;
}

export interface ClusterLike {
  readonly targetTopics: Set<string>;
  refreshMetadataIfNecessary(): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): readonly unknown[];
  findLeaderForPartitions(topic: string, partitions: readonly number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string }): Promise<BrokerLike>;
  addMultipleTargetTopics(topics: readonly string[]): Promise<void>;
  isConnected(): boolean;
  connect(): Promise<void>;
  removeBroker(args: { host: string | undefined; port: number | undefined }): void;
}

export interface EosManagerLike {
  isTransactional(): boolean;
  addPartitionsToTransaction(topicData: readonly TopicData[]): Promise<void>;
  getSequence(topic: string, partition: number): number;
  updateSequence(topic: string, partition: number, increment: number): void;
  acquireBrokerLock(broker: BrokerLike): Promise<void>;
  releaseBrokerLock(broker: BrokerLike): Promise<void>;
  getTransactionalId(): string;
  getProducerId(): number;
  getProducerEpoch(): number;
}

type Bail = (e: Error) => void;
export type Retrier = <T>(
  attempt: (bail: Bail, retryCount: number, retryTime: number) => Promise<T>,
) => Promise<T>;

interface Logger {
  debug(message: string, extra?: object): void;
  error(message: string, extra?: object): void;
}

export interface SendMessagesDeps<M> {
  readonly logger: Logger;
  readonly cluster: ClusterLike;
  readonly partitioner: (args: {
    topic: string;
    partitionMetadata: readonly unknown[];
    message: M;
  }) => number;
  readonly eosManager: EosManagerLike;
  readonly retrier: Retrier;
}

export interface SendRequest<M> {
  readonly acks: number;
  readonly timeout?: number;
  readonly compression?: number;
  readonly topicMessages: readonly { readonly topic: string; readonly messages: readonly M[] }[];
}

interface PartitionData<M = unknown> {
  readonly partition: number;
  readonly messages: readonly M[];
  firstSequence?: number;
}

interface TopicData<M = unknown> {
  readonly topic: string;
  readonly partitions: PartitionData<M>[];
}

/** What one send wrote so far: each partition's answer, kept across kafkajs's retries. */
class SendProgress<M> {
  /** Topic → partition → its messages, grouped once: a retry must resend the same records. */
  readonly #grouped = new Map<string, Record<number, M[]>>();
  /** Topic → partition → the broker's answer (null with acks=0, which has none). */
  readonly #written = new Map<string, Map<number, PartitionAnswer | null>>();

  grouping(topic: string, make: () => Record<number, M[]>): Record<number, M[]> {
    let grouped = this.#grouped.get(topic);
    if (grouped === undefined) {
      grouped = make();
      this.#grouped.set(topic, grouped);
    }
    return grouped;
  }

  pending(topic: string, grouped: Record<number, M[]>): number[] {
    const written = this.#written.get(topic);
    return Object.keys(grouped)
      .map(Number)
      .filter((p) => !written?.has(p));
  }

  wrote(topic: string, partition: number, answer: PartitionAnswer | null): void {
    let written = this.#written.get(topic);
    if (written === undefined) {
      written = new Map();
      this.#written.set(topic, written);
    }
    written.set(partition, answer);
  }

  /** Every partition's answer, in kafkajs's shape (`responseSerializer`). */
  results(): ({ topicName: string } & PartitionAnswer)[] {
    return [...this.#written].flatMap(([topicName, partitions]) =>
      [...partitions.values()].flatMap((answer) => (answer === null ? [] : [{ topicName, ...answer }])),
    );
  }
}

/**
 * A Produce request whose answer keeps every partition's result: kafkajs's own response parse
 * throws at the first failed partition, dropping the offsets of those that were written.
 * Does what `Broker.produce` does around the request (a closed connection disconnects the broker).
 */
async function produceKeepingPartitions(
  broker: BrokerLike,
  args: object,
): Promise<ProduceAnswer | undefined> {
  const { produceKey, produceRequest } = kafkajs();
  const built = broker.lookupRequest(produceKey, produceRequest)(args);
  const request: ProtocolRequest = { ...built, response: { ...built.response, parse: async (data) => data } };
  try {
    return (await broker.connectionPool.send(request)) as ProduceAnswer | undefined;
  } catch (e) {
    if ((e as Error).name === 'KafkaJSConnectionClosedError') await broker.disconnect();
    throw e;
  }
}

/**
 * kafkajs 2.2.4's `sendMessages`, keeping what each partition wrote across retries. kafkajs's own
 * kept answers per broker, but a broker's answer with one failed partition (NOT_LEADER…,
 * LEADER_NOT_AVAILABLE on a topic made a moment ago) threw the whole answer away, and the retry
 * sent every partition of that broker again: the ones written were written twice (issue 41,
 * item 3). Here a retry sends only the partitions not written yet, and the grouping is made once,
 * so the records of a partition are the same on every attempt.
 *
 * What stays ambiguous: a request that fails as a whole (a timeout, a closed connection) may have
 * been written by the broker; it is sent again, as kafkajs does (this producer is not idempotent).
 */
export function createSendMessages<M>({
  logger,
  cluster,
  partitioner,
  eosManager,
  retrier,
}: SendMessagesDeps<M>) {
  return async (request: SendRequest<M>) => {
    const progress = new SendProgress<M>();
    return retrier(async (bail, retryCount, retryTime) => {
      await cluster.addMultipleTargetTopics(request.topicMessages.map(({ topic }) => topic));
      try {
        await sendPending(request, progress, { logger, cluster, partitioner, eosManager });
        return progress.results();
      } catch (e) {
        await recover(e as KafkajsErrorLike, { cluster, logger, bail, retryCount, retryTime });
      }
    });
  };
}

/** kafkajs's own handling of a failed attempt: refresh what is stale, then retry or bail. */
async function recover(
  e: KafkajsErrorLike,
  ctx: { cluster: ClusterLike; logger: Logger; bail: Bail; retryCount: number; retryTime: number },
): Promise<void> {
  const { cluster, logger, retryCount, retryTime } = ctx;
  const { staleMetadata } = kafkajs().errors;
  if (e.name === 'KafkaJSConnectionClosedError') cluster.removeBroker({ host: e.host, port: e.port });
  if (!cluster.isConnected()) {
    logger.debug(`Cluster has disconnected, reconnecting: ${e.message}`, { retryCount, retryTime });
    await cluster.connect();
    await cluster.refreshMetadata();
    throw e;
  }
  if (
    staleMetadata(e) ||
    e.name === 'KafkaJSMetadataNotLoaded' ||
    e.name === 'KafkaJSConnectionError' ||
    e.name === 'KafkaJSConnectionClosedError' ||
    (e.name === 'KafkaJSProtocolError' && e.retriable)
  ) {
    logger.error(`Failed to send messages: ${e.message}`, { retryCount, retryTime });
    await cluster.refreshMetadata();
    throw e;
  }
  logger.error(`${e.message}`, { retryCount, retryTime });
  if (e.retriable) throw e;
  ctx.bail(e);
}

type AttemptDeps<M> = Omit<SendMessagesDeps<M>, 'retrier'>;

/**
 * One attempt: every partition not written yet goes to its leader. All requests settle before the
 * attempt fails, so a retry never races a request still in flight.
 */
async function sendPending<M>(
  request: SendRequest<M>,
  progress: SendProgress<M>,
  deps: AttemptDeps<M>,
): Promise<void> {
  await deps.cluster.refreshMetadataIfNecessary();
  const { perBroker, leaderless } = await requestsPerBroker(request, progress, deps);
  const settled = await Promise.allSettled(
    [...perBroker.values()].map(({ broker, topicData }) =>
      produceTo(broker, topicData, request, progress, deps),
    ),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  if (leaderless !== undefined) throw leaderless;
}

async function requestsPerBroker<M>(
  request: SendRequest<M>,
  progress: SendProgress<M>,
  { cluster, partitioner, logger }: AttemptDeps<M>,
): Promise<{
  perBroker: Map<string, { broker: BrokerLike; topicData: TopicData<M>[] }>;
  leaderless?: Error;
}> {
  const { KafkaJSMetadataNotLoaded, errors } = kafkajs();
  const { createErrorFromCode } = errors;
  const perBroker = new Map<string, { broker: BrokerLike; topicData: TopicData<M>[] }>();
  let leaderless: Error | undefined;
  for (const { topic, messages } of request.topicMessages) {
    const partitionMetadata = cluster.findTopicPartitionMetadata(topic);
    if (partitionMetadata.length === 0) {
      logger.debug('Producing to topic without metadata', { topic, targetTopics: [...cluster.targetTopics] });
      throw new KafkaJSMetadataNotLoaded('Producing to topic without metadata');
    }
    const grouped = progress.grouping(topic, () =>
      groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner }),
    );
    const pending = progress.pending(topic, grouped);
    const perLeader = cluster.findLeaderForPartitions(topic, pending);
    // A partition the metadata does not know yet, or whose leader is none (-1), waits for a retry.
    if (Object.values(perLeader).flat().length < pending.length)
      leaderless = createErrorFromCode(LEADER_NOT_AVAILABLE);
    for (const [nodeId, partitions] of Object.entries(perLeader)) {
      const broker =
        Number(nodeId) < 0 ? undefined : await cluster.findBroker({ nodeId }).catch(() => undefined);
      if (broker === undefined) {
        leaderless = createErrorFromCode(LEADER_NOT_AVAILABLE);
        continue;
      }
      const entry = perBroker.get(nodeId) ?? { broker, topicData: [] };
      entry.topicData.push({
        topic,
        partitions: partitions.map((p) => ({ partition: p, messages: grouped[p] ?? [] })),
      });
      perBroker.set(nodeId, entry);
    }
  }
  return leaderless === undefined ? { perBroker } : { perBroker, leaderless };
}

/**
 * Sends one broker's partitions and records those it wrote. A failed partition's sequence is
 * handed back (for an idempotent producer's retry); a written one's is kept, as it is not resent.
 */
async function produceTo<M>(
  broker: BrokerLike,
  topicData: TopicData<M>[],
  request: SendRequest<M>,
  progress: SendProgress<M>,
  { eosManager }: AttemptDeps<M>,
): Promise<void> {
  await eosManager.acquireBrokerLock(broker);
  try {
    if (eosManager.isTransactional()) await eosManager.addPartitionsToTransaction(topicData);
    forEachPartition(topicData, (topic, entry) => {
      entry.firstSequence = eosManager.getSequence(topic, entry.partition);
      eosManager.updateSequence(topic, entry.partition, entry.messages.length);
    });
    const giveBack = (topic: string, entry: PartitionData<M>) =>
      eosManager.updateSequence(topic, entry.partition, -entry.messages.length);
    let answer: ProduceAnswer | undefined;
    try {
      answer = await produceKeepingPartitions(broker, {
        transactionalId: eosManager.isTransactional() ? eosManager.getTransactionalId() : undefined,
        producerId: eosManager.getProducerId(),
        producerEpoch: eosManager.getProducerEpoch(),
        acks: request.acks,
        timeout: request.timeout,
        compression: request.compression,
        topicData,
      });
    } catch (e) {
      forEachPartition(topicData, giveBack);
      throw e;
    }
    const failed = settlePartitions(topicData, request.acks === 0 ? undefined : answer, progress);
    for (const { topic, entry } of failed) giveBack(topic, entry);
    const first = failed[0];
    if (first !== undefined) throw first.error;
  } finally {
    await eosManager.releaseBrokerLock(broker);
  }
}

function forEachPartition<M>(
  topicData: TopicData<M>[],
  each: (topic: string, entry: PartitionData<M>) => void,
): void {
  for (const { topic, partitions } of topicData) for (const entry of partitions) each(topic, entry);
}

/**
 * Records each written partition and returns the failed ones with their errors. Without an
 * answer (acks=0) every partition counts as written. A partition the answer leaves out counts
 * as failed: nothing says it was written.
 */
function settlePartitions<M>(
  topicData: TopicData<M>[],
  answer: ProduceAnswer | undefined,
  progress: SendProgress<M>,
): { topic: string; entry: PartitionData<M>; error: Error }[] {
  const { createErrorFromCode } = kafkajs().errors;
  const failed: { topic: string; entry: PartitionData<M>; error: Error }[] = [];
  forEachPartition(topicData, (topic, entry) => {
    if (answer === undefined) return progress.wrote(topic, entry.partition, null);
    const got = answer.topics
      .find((t) => t.topicName === topic)
      ?.partitions.find((p) => p.partition === entry.partition);
    if (got !== undefined && got.errorCode === 0) return progress.wrote(topic, entry.partition, got);
    const error = got === undefined ? noAnswer(topic, entry.partition) : createErrorFromCode(got.errorCode);
    failed.push({ topic, entry, error });
  });
  return failed;
}

function noAnswer(topic: string, partition: number): Error {
  return new (kafkajs().KafkaJSError)(`the broker's answer left out ${topic}/${partition}`);
}

/** The module replaced. */
export function kafkajsSendMessagesPath(): string {
  return require.resolve('kafkajs/src/producer/sendMessages.js');
}

/**
 * Makes kafkajs's producers use `createSendMessages`: `messageProducer` captures `sendMessages`
 * when it loads (with kafkajs's producer), so the replacement must be in Node's module cache first.
 */
export function preloadProduceRetry(): boolean {
  return preloadModule(
    kafkajsSendMessagesPath(),
    [require.resolve('kafkajs/src/producer/messageProducer.js')],
    createSendMessages,
  );
}
