import { createRequire } from 'node:module';

interface JoinAndSync {
  joinAndSync(this: KafkajsConsumerGroup, ...args: unknown[]): Promise<void>;
  hookstreamRejoinBarrier?: true;
}

/** What the patch reads of kafkajs's ConsumerGroup: null before the first join and after UNKNOWN_MEMBER_ID. */
interface KafkajsConsumerGroup {
  readonly memberId?: string | null;
}

/** The barrier a REBALANCING listener handed over, for the joinAndSync that follows it. */
let handed: Promise<void> | null = null;

/** Per member id, the barrier of a rejoin kafkajs starts without emitting REBALANCING. */
const ownRejoins = new Map<string, () => Promise<void>>();

/**
 * Per kafkajs ConsumerGroup, the member id of its latest join: after UNKNOWN_MEMBER_ID kafkajs
 * clears `memberId` before it rejoins, and the member's barrier is found under this one.
 */
const joinedAs = new WeakMap<KafkajsConsumerGroup, string>();

/**
 * Makes the rejoin kafkajs's runner is about to start wait for `barrier`. Call it only from a
 * REBALANCING listener: the runner emits that event and calls joinAndSync in the same tick, so
 * the barrier reaches that member's rejoin and no other. The barrier must settle by itself,
 * bounded well within the session timeout (the member sends no heartbeat meanwhile).
 */
export function holdNextRejoin(barrier: Promise<void>): void {
  handed = barrier;
}

/**
 * kafkajs also rejoins without emitting REBALANCING: when a fetch finds stale metadata (a
 * partition's leader not known yet, common right after a topic is created) or a stale
 * assignment. A stable group's follower gets its partitions back at once; a leader's rejoin
 * rebalances the group, and its partitions may move. Either way its records in flight must be
 * handed over as at a rebalance: `barrier` runs at each such rejoin of the member with this id
 * (kafkajs keeps a member's id across its rejoins; when the coordinator forgot the member it
 * clears the id first, and the barrier is found under the id of the member's last join: its
 * lanes stop before the rejoin, though their commits are refused). Call the returned function
 * when the id changes or the member leaves.
 */
export function holdRejoinsOf(memberId: string, barrier: () => Promise<void>): () => void {
  ownRejoins.set(memberId, barrier);
  return () => {
    if (ownRejoins.get(memberId) === barrier) ownRejoins.delete(memberId);
  };
}

/** The member's own barrier (`holdRejoinsOf`), if its id has one; a hook that throws holds nothing. */
function ownBarrier(memberId: string | null | undefined): Promise<void> | null {
  const own = memberId == null ? undefined : ownRejoins.get(memberId);
  try {
    return own?.() ?? null;
  } catch {
    return null;
  }
}

/**
 * kafkajs 2.2.4 rejoins its group the moment a fetch or heartbeat says it is rebalancing, while
 * records it handed out are still being delivered (the eachBatch handler has long returned).
 * Another member may then be given those partitions and start from the committed offset, and
 * send again what is still on the wire here. Java's consumer runs onPartitionsRevoked before it
 * rejoins for this reason; kafkajs has no such hook. This puts one in: joinAndSync first awaits
 * the barrier a REBALANCING listener handed over (`holdNextRejoin`), or, for a rejoin kafkajs
 * starts on its own (stale metadata; the coordinator forgot the member), the member's own
 * (`holdRejoinsOf`, found under the id of its last join), so the member can let its
 * requests in flight end and commit them while its generation still counts. Without it delivery
 * is still at least once, with more duplicates at each rebalance.
 */
export function patchKafkajsRejoinBarrier(): true {
  const require = createRequire(import.meta.url);
  // Deep path: the class is not exported. Checked by this package's tests against the installed
  // kafkajs, so an upgrade that moves or changes it fails there rather than silently.
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as { prototype: JoinAndSync };
  const proto = ConsumerGroup.prototype;
  if (proto.hookstreamRejoinBarrier) return true;
  const original = proto.joinAndSync;
  proto.joinAndSync = async function joinAndSync(
    this: KafkajsConsumerGroup,
    ...args: unknown[]
  ): Promise<void> {
    const fromRebalance = handed;
    handed = null;
    const barrier = fromRebalance ?? ownBarrier(this.memberId ?? joinedAs.get(this));
    // The barrier ends on its own (bounded); if it fails, the rejoin goes ahead as before.
    if (barrier !== null) await barrier.catch(() => undefined);
    await original.apply(this, args);
    if (this.memberId != null) joinedAs.set(this, this.memberId);
  };
  proto.hookstreamRejoinBarrier = true;
  return true;
}
