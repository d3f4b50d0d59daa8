import { setTimeout as sleep } from 'node:timers/promises';
import {
  CATALOG_TOPIC,
  registrationKey,
  SubscriberRegistration,
  subscriberGroupId,
} from '@hookstream/contracts';
import {
  type ConsumedRecord,
  type KafkaAdmin,
  type KafkaConnection,
  KafkaReadError,
  type RecordSender,
  readTopic,
  type StartFrom,
} from '@hookstream/kafka';
import { registryTopicSpec } from '@hookstream/subscribers';
import { PusherError } from './errors.ts';

/** What a pusher may do at start, given the registry and the group's ledger (pure). */
export type StartDecision =
  | { readonly kind: 'start'; readonly start: StartFrom; readonly registeredAt: string | null }
  | { readonly kind: 'refuse'; readonly registeredAt: string }
  | { readonly kind: 'unreadable'; readonly problem: string };

/**
 * A known subscriber without a ledger lost its offsets (expired while it was stopped, or the
 * group was deleted): starting from its `start` setting would skip or repeat events silently,
 * so it starts only where an operator says (`resumeFrom`). A new subscriber uses `start`.
 */
export function decideStart(input: {
  readonly registeredAt: string | null;
  /** Why the registration cannot be read; then whether the subscriber is known is not known. */
  readonly unreadable?: string | undefined;
  readonly hasLedger: boolean;
  readonly start: StartFrom;
  readonly resumeFrom: StartFrom | undefined;
}): StartDecision {
  const { registeredAt } = input;
  if (input.hasLedger) return { kind: 'start', start: input.start, registeredAt };
  // No ledger and no readable registration: new, or known with its ledger lost? Only an
  // operator can say.
  if (registeredAt === null && input.unreadable !== undefined)
    return input.resumeFrom === undefined
      ? { kind: 'unreadable', problem: input.unreadable }
      : { kind: 'start', start: input.resumeFrom, registeredAt };
  if (registeredAt === null) return { kind: 'start', start: input.start, registeredAt };
  if (input.resumeFrom !== undefined) return { kind: 'start', start: input.resumeFrom, registeredAt };
  return { kind: 'refuse', registeredAt };
}

/** What a caller that already read the catalog topic (a fleet) knows of this subscriber. */
export interface KnownRegistration {
  /** When it first started; null when it never did (or its record cannot be read). */
  readonly registeredAt: string | null;
  /** Why its latest registration record cannot be read, when it cannot. */
  readonly unreadable?: string | undefined;
}

/** A registration record's value; null when absent or not a registration (never throws). */
export function parseRegistration(value: Buffer | null): SubscriberRegistration | null {
  if (value === null) return null;
  try {
    const parsed = SubscriberRegistration.safeParse(JSON.parse(value.toString()));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The latest registration of one key, oldest value first: a tombstone (a purge) forgets it; a
 * value that does not parse keeps the last good one, or, with none, is reported as unreadable.
 */
export function latestRegistration(values: readonly (Buffer | null)[]): KnownRegistration {
  let known: KnownRegistration = { registeredAt: null };
  for (const value of values) {
    if (value === null) known = { registeredAt: null };
    else {
      const parsed = parseRegistration(value);
      if (parsed) known = { registeredAt: parsed.registeredAt };
      else if (known.registeredAt === null)
        known = { registeredAt: null, unreadable: 'the record does not parse as a registration' };
    }
  }
  return known;
}

/** Reads and writes the catalog's registrations around a pusher's start. */
export class LedgerRegistrations {
  readonly #kafka: KafkaConnection;
  readonly #name: string;
  readonly #eventsTopic: string;

  constructor(kafka: KafkaConnection, name: string, eventsTopic: string) {
    this.#kafka = kafka;
    this.#name = name;
    this.#eventsTopic = eventsTopic;
  }

  /**
   * The catalog's registrations of this subscriber. The topic was just ensured, but on a cluster of
   * several brokers the broker readTopic asks may not list a topic created a moment ago yet
   * (seen in the broker-loss scenario): NO_SUCH_TOPIC then means "not yet", for a few seconds.
   */
  async #readJustEnsured(key: string): Promise<ConsumedRecord[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        return await readTopic(this.#kafka, {
          topic: CATALOG_TOPIC,
          keep: (r) => r.key === key,
          purpose: 'catalog',
        });
      } catch (err) {
        if (!(err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') || Date.now() > deadline)
          throw err;
        await sleep(200);
      }
    }
  }

  /** Where the group may start; throws LEDGER_LOST when it must not start by itself. */
  async check(
    admin: KafkaAdmin,
    replicationFactor: number,
    start: StartFrom,
    resumeFrom: StartFrom | undefined,
    known?: KnownRegistration,
  ): Promise<StartDecision & { kind: 'start' }> {
    const registration = known ?? (await this.#registration(admin, replicationFactor));
    const groupId = subscriberGroupId(this.#name);
    const ledger = await admin.committedOffsets(groupId, this.#eventsTopic);
    const decision = decideStart({
      registeredAt: registration.registeredAt,
      unreadable: registration.unreadable,
      hasLedger: ledger.some((p) => p.offset !== null),
      start,
      resumeFrom,
    });
    if (decision.kind === 'refuse')
      throw new PusherError(
        'LEDGER_LOST',
        `subscriber "${this.#name}" exists since ${decision.registeredAt}, but group ${groupId} has no ` +
          `committed offsets on ${this.#eventsTopic} any more (they expire after offsets.retention.minutes ` +
          'with no member, or the group was deleted). Starting from its start setting could skip or ' +
          'repeat events, so it does not start: say where to resume with --resume-from ' +
          'earliest|latest|<RFC 3339 time>',
        false,
      );
    if (decision.kind === 'unreadable')
      throw new PusherError(
        'REGISTRATION_UNREADABLE',
        `subscriber "${this.#name}": its registration ${registrationKey(this.#name, this.#eventsTopic)} in ` +
          `${CATALOG_TOPIC} cannot be read (${decision.problem}) and group ${groupId} has no ` +
          'ledger, so whether it is new or lost its ledger is unknown; it does not start: say where to ' +
          'start with --resume-from earliest|latest|<RFC 3339 time>',
        false,
      );
    return decision;
  }

  /** When the subscriber was first started, from the catalog topic; null for a new one. */
  async #registration(admin: KafkaAdmin, replicationFactor: number): Promise<KnownRegistration> {
    await admin.ensureTopics([registryTopicSpec(replicationFactor)]);
    const key = registrationKey(this.#name, this.#eventsTopic);
    return latestRegistration((await this.#readJustEnsured(key)).map((r) => r.value));
  }

  /** Records that the subscriber exists (after its group has a ledger). */
  async register(sender: RecordSender, registeredAt: string | null): Promise<void> {
    const now = new Date().toISOString();
    const value: SubscriberRegistration = {
      name: this.#name,
      eventsTopic: this.#eventsTopic,
      registeredAt: registeredAt ?? now,
      lastStartedAt: now,
    };
    await sender.send(CATALOG_TOPIC, [
      {
        key: registrationKey(this.#name, this.#eventsTopic),
        value: Buffer.from(JSON.stringify(value)),
        headers: {},
      },
    ]);
  }
}
