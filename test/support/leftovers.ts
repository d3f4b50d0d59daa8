import { CATALOG_TOPIC } from '@hookstream/contracts';
import {
  createKafka,
  type KafkaAdmin,
  type KafkaConnection,
  RecordSender,
  readTopic,
} from '@hookstream/kafka';

/** What a run or a file left on the shared stack, found by the tag its names carry (names.ts). */
export interface Leftovers {
  readonly topics: readonly string[];
  readonly groups: readonly string[];
  /** Catalog keys whose latest record is not a tombstone: subscribers, registrations, bindings. */
  readonly catalogKeys: readonly string[];
  readonly subjects: readonly string[];
}

export interface StackEndpoints {
  readonly brokers: readonly string[];
  /** The registry's Confluent-compatible API. */
  readonly registry: string;
}

/** A group that still has members cannot be deleted; a killed member leaves at its session timeout. */
const NON_EMPTY_WAIT_MS = 45_000;

export function countLeftovers(left: Leftovers): number {
  return left.topics.length + left.groups.length + left.catalogKeys.length + left.subjects.length;
}

export function describeLeftovers(left: Leftovers): string {
  const lines = [
    ...left.topics.map((t) => `topic ${t}`),
    ...left.groups.map((g) => `group ${g}`),
    ...left.catalogKeys.map((k) => `catalog record ${k}`),
    ...left.subjects.map((s) => `registry subject ${s}`),
  ];
  return lines.map((l) => `  ${l}`).join('\n');
}

/** Everything on the stack whose name carries `tag`. */
export async function findLeftovers(stack: StackEndpoints, tag: string): Promise<Leftovers> {
  return withKafka(stack, (kafka, admin) => find(stack, kafka, admin, tag));
}

export interface RemoveOptions {
  /**
   * Wait (up to NON_EMPTY_WAIT_MS) for groups a killed member still holds until its session
   * times out; false: try each once and leave the rest to a later call.
   */
  readonly waitForGroups: boolean;
}

/** What removeLeftovers found, and the groups it could not delete yet (members still in them). */
export interface Removed extends Leftovers {
  readonly groupsNotDeleted: readonly string[];
}

/**
 * Removes everything whose name carries `tag`: topics, groups, catalog records (by tombstone) and
 * registry subjects. Returns what it found before removing it.
 */
export async function removeLeftovers(
  stack: StackEndpoints,
  tag: string,
  options: RemoveOptions,
): Promise<Removed> {
  return withKafka(stack, async (kafka, admin) => {
    const found = await find(stack, kafka, admin, tag);
    await tombstone(kafka, found.catalogKeys);
    const groupsNotDeleted = await deleteGroups(admin, found.groups, options.waitForGroups);
    await admin.deleteTopics(found.topics);
    for (const subject of found.subjects) await deleteSubject(stack.registry, subject);
    return { ...found, groupsNotDeleted };
  });
}

async function withKafka<T>(
  stack: StackEndpoints,
  work: (kafka: KafkaConnection, admin: KafkaAdmin) => Promise<T>,
): Promise<T> {
  const kafka = createKafka({ brokers: [...stack.brokers], clientId: 'test-leftovers', quiet: true });
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(kafka, admin);
  } finally {
    await admin.disconnect();
  }
}

async function find(
  stack: StackEndpoints,
  kafka: KafkaConnection,
  admin: KafkaAdmin,
  tag: string,
): Promise<Leftovers> {
  const [topics, groups, catalogKeys, subjects] = await Promise.all([
    admin.listTopics().then((all) => all.filter((t) => t.includes(tag)).sort()),
    admin.listGroupIds('').then((all) => all.filter((g) => g.includes(tag))),
    liveCatalogKeys(kafka, admin, tag),
    registrySubjects(stack.registry).then((all) => all.filter((s) => s.includes(tag)).sort()),
  ]);
  return { topics, groups, catalogKeys, subjects };
}

async function liveCatalogKeys(kafka: KafkaConnection, admin: KafkaAdmin, tag: string): Promise<string[]> {
  if (!(await admin.topicExists(CATALOG_TOPIC))) return [];
  const records = await readTopic(kafka, {
    topic: CATALOG_TOPIC,
    keep: (r) => r.key?.includes(tag) === true,
    purpose: 'test-leftovers',
  });
  const live = new Map<string, boolean>();
  for (const r of records) if (r.key !== null) live.set(r.key, r.value !== null);
  return [...live]
    .filter(([, isLive]) => isLive)
    .map(([key]) => key)
    .sort();
}

async function tombstone(kafka: KafkaConnection, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const sender = new RecordSender(kafka);
  await sender.connect();
  try {
    await sender.send(
      CATALOG_TOPIC,
      keys.map((key) => ({ key, value: null, headers: {} })),
    );
  } finally {
    await sender.disconnect();
  }
}

/** Deletes the groups, once or until they are empty; returns those still not deleted. */
async function deleteGroups(admin: KafkaAdmin, groups: readonly string[], wait: boolean): Promise<string[]> {
  let pending = [...groups];
  const deadline = Date.now() + (wait ? NON_EMPTY_WAIT_MS : 0);
  while (pending.length > 0) {
    const failed: string[] = [];
    for (const group of pending) {
      await admin.deleteGroups([group]).catch(() => failed.push(group));
    }
    pending = failed;
    if (pending.length === 0 || Date.now() >= deadline) return pending;
    await new Promise((ok) => setTimeout(ok, 1000));
  }
  return pending;
}

async function registrySubjects(registry: string): Promise<string[]> {
  const res = await fetch(`${registry}/subjects`);
  if (!res.ok) throw new Error(`registry: GET /subjects answered ${res.status}`);
  return (await res.json()) as string[];
}

async function deleteSubject(registry: string, subject: string): Promise<void> {
  // A soft delete only: Apicurio's permanent delete also drops every content row no version
  // points at, in a transaction of its own, and so takes the content another file's register()
  // has just written but not yet tied to its version. That subject then answers "No content with
  // ID n" for the rest of the run. A soft-deleted subject is no longer listed, and a scratch
  // registry database is wiped with the stack.
  const res = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}`, { method: 'DELETE' });
  if (!res.ok && res.status !== 404) throw new Error(`registry: DELETE ${subject} answered ${res.status}`);
}
