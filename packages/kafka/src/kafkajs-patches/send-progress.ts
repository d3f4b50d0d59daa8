/** One partition's part of a Produce answer, decoded (kafkajs adds `topicName` when it flattens). */
export interface PartitionAnswer {
  readonly partition: number;
  readonly errorCode: number;
  readonly baseOffset?: string;
}

export interface TopicAnswer {
  readonly topicName: string;
  readonly partitions: readonly PartitionAnswer[];
}

/** One partition's part of a Produce request, as kafkajs's `createTopicData` builds it. */
export interface PartitionData<M> {
  readonly partition: number;
  readonly messages: readonly M[];
  firstSequence?: number;
}

export interface TopicData<M> {
  readonly topic: string;
  readonly partitions: PartitionData<M>[];
}

/** What a send returns: kafkajs's `responseSerializer` shape, one row per partition written. */
export type SentPartition = PartitionAnswer & { readonly topicName: string };

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * One send's partitions across its attempts: which messages each partition holds (fixed at the
 * first grouping, so a retry cannot move a message), and which were written, with the broker's
 * answer for each.
 */
export class SendProgress<M> {
  readonly #assigned = new Map<string, ReadonlyMap<number, readonly M[]>>();
  readonly #written = new Map<string, SentPartition | null>();

  /** Groups a topic's messages once; later attempts keep that grouping. */
  assign(topic: string, group: () => Record<number, M[]>): void {
    if (this.#assigned.has(topic)) return;
    this.#assigned.set(
      topic,
      new Map(Object.entries(group()).map(([partition, messages]) => [Number(partition), messages])),
    );
  }

  /** The topic's partitions not written yet. */
  pending(topic: string): number[] {
    const assigned = this.#assigned.get(topic) ?? new Map();
    return [...assigned.keys()].filter((p) => !this.#written.has(keyOf(topic, p)));
  }

  /** How many partitions of the send are still to write. */
  unsent(): number {
    let n = 0;
    for (const topic of this.#assigned.keys()) n += this.pending(topic).length;
    return n;
  }

  topicData(topic: string, partitions: readonly number[]): TopicData<M> {
    const assigned = this.#assigned.get(topic);
    return {
      topic,
      partitions: partitions.map((partition) => ({ partition, messages: assigned?.get(partition) ?? [] })),
    };
  }

  /**
   * A request that succeeded: every partition in it was written. `answer` is undefined with
   * acks=0, when the broker says nothing.
   */
  settleSent(topicData: readonly TopicData<M>[], answer: readonly TopicAnswer[] | undefined): void {
    for (const { topic, partitions } of topicData)
      for (const { partition } of partitions) this.#written.set(keyOf(topic, partition), null);
    this.settleAnswered(answer ?? []);
  }

  /** The partitions a broker's answer says it wrote (error code 0). */
  settleAnswered(answer: readonly TopicAnswer[]): void {
    for (const { topicName, partitions } of answer)
      for (const p of partitions)
        if (p.errorCode === 0) this.#written.set(keyOf(topicName, p.partition), { topicName, ...p });
  }

  isWritten(topic: string, partition: number): boolean {
    return this.#written.has(keyOf(topic, partition));
  }

  /** The answers of every partition written, as kafkajs's send returns them. */
  answers(): SentPartition[] {
    return [...this.#written.values()].filter((a): a is SentPartition => a !== null);
  }
}
