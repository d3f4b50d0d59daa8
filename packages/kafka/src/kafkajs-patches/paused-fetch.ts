import { createRequire } from 'node:module';

/** How long a member with nothing to fetch waits before kafkajs's own check (and sleep) again. */
export const PAUSED_WAIT_MS = 1000;

interface TopicPartitions {
  readonly topic: string;
  readonly partitions: readonly number[];
}

interface ConsumerGroupLike {
  subscriptionState: { active(): TopicPartitions[] };
  filterPartitionsByNode(nodeId: number, topicPartitions: TopicPartitions[]): TopicPartitions[];
}

interface ConsumerGroupProto {
  fetch(this: ConsumerGroupLike, nodeId: number): Promise<unknown[]>;
  resume(this: ConsumerGroupLike, ...args: unknown[]): void;
  seek(this: ConsumerGroupLike, ...args: unknown[]): void;
  hookstreamPausedFetch?: true;
}

interface RunnerProto {
  stop(this: { consumerGroup: ConsumerGroupLike }, ...args: unknown[]): Promise<void>;
}

/** Per member: whether its last fetch had nothing to fetch, and how to end its current wait. */
interface IdleState {
  idle: boolean;
  wake: (() => void) | null;
}

const states = new WeakMap<object, IdleState>();

function stateOf(group: object): IdleState {
  let state = states.get(group);
  if (state === undefined) {
    state = { idle: false, wake: null };
    states.set(group, state);
  }
  return state;
}

function wake(group: object): void {
  const state = states.get(group);
  if (state === undefined) return;
  state.idle = false;
  state.wake?.();
}

/**
 * kafkajs 2.2.4's fetch loop, when every partition a member holds on a broker is paused, sleeps
 * `maxWaitTime` (the fetch wait, 100 ms in a pusher) and loops: the runner's events, the
 * metadata check, the assignment's lists, a heartbeat check, ten times a second. A fleet's
 * members ride the events tap with their own fetch paused, so a thousand of them looped ten
 * thousand times a second doing nothing, which was most of an idle fleet's CPU and garbage.
 * Now a member whose previous fetch had nothing to fetch either, and still has nothing, first
 * waits up to PAUSED_WAIT_MS, ended at once by a resume, a seek or the runner's stop; then
 * kafkajs's own fetch runs as before (its metadata and assignment checks, its short sleep). The
 * first idle fetch after a join or after fetching goes straight on, so a join's first fetch is
 * as quick as before. Heartbeats go out from this loop: they stay within a second of due.
 */
export function patchKafkajsPausedFetch(): true {
  const require = createRequire(import.meta.url);
  // Deep paths: the classes are not exported. Checked by this package's tests against the
  // installed kafkajs, so an upgrade that moves or changes them fails there rather than silently.
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as { prototype: ConsumerGroupProto };
  const Runner = require('kafkajs/src/consumer/runner.js') as { prototype: RunnerProto };
  const proto = ConsumerGroup.prototype;
  if (proto.hookstreamPausedFetch) return true;
  const { fetch, resume, seek } = proto;
  proto.fetch = async function pausedFetch(this: ConsumerGroupLike, nodeId: number): Promise<unknown[]> {
    const state = stateOf(this);
    const nothing = nothingToFetch(this, nodeId);
    if (nothing && state.idle)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, PAUSED_WAIT_MS);
        function done() {
          clearTimeout(timer);
          state.wake = null;
          resolve();
        }
        state.wake = done;
      });
    state.idle = nothing;
    return fetch.call(this, nodeId);
  };
  proto.resume = function pausedResume(this: ConsumerGroupLike, ...args: unknown[]): void {
    resume.apply(this, args);
    wake(this);
  };
  proto.seek = function pausedSeek(this: ConsumerGroupLike, ...args: unknown[]): void {
    seek.apply(this, args);
    wake(this);
  };
  const { stop } = Runner.prototype;
  Runner.prototype.stop = function pausedStop(
    this: { consumerGroup: ConsumerGroupLike },
    ...args: unknown[]
  ) {
    // The runner waits for its fetch loop to end: a member waiting here ends the wait at once.
    if (this.consumerGroup) wake(this.consumerGroup);
    return stop.apply(this, args);
  };
  proto.hookstreamPausedFetch = true;
  return true;
}

/** No partition this member holds on the broker is active (all paused, or none assigned). */
function nothingToFetch(group: ConsumerGroupLike, nodeId: number): boolean {
  try {
    const active = group.subscriptionState.active();
    return group.filterPartitionsByNode(nodeId, active).every((t) => t.partitions.length === 0);
  } catch {
    // Metadata not loaded yet, say: kafkajs's own fetch recovers from that, so it runs at once.
    return false;
  }
}
