import { createHash } from 'node:crypto';
import { isPullDefinition, registrationKey, type SubscriberRecord } from '@hookstream/contracts';
import {
  type CatalogSnapshot,
  openManagedCredentials,
  openManagedHeaders,
  resolveSigningKeys,
  type SecretsKey,
} from '@hookstream/subscribers';
import type { FleetMember } from './fleet.ts';
import type { KnownRegistration } from './ledger-registrations.ts';
import { SubscriberTopology } from './subscriber-topology.ts';

export interface FleetSelection {
  /** The events topic every member's group reads. */
  readonly eventsTopic: string;
  /** Which subscriber names this fleet runs (`--match`); all when absent. */
  readonly match?: (name: string) => boolean;
  /** Opens managed secrets; a managed subscriber without it cannot run (reported). */
  readonly secretsKey?: SecretsKey | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly now?: Date;
}

/** A subscriber the fleet should run but cannot (its secret or a managed header cannot be had). */
export interface MemberProblem {
  readonly name: string;
  readonly error: string;
}

/**
 * The registry snapshot as the fleet's desired set: every active subscriber that matches, with
 * its signing keys and managed headers opened and a fingerprint of what a restart depends on
 * (definition, keys and header values, so a rotation, an expired previous secret or a new
 * header value restarts it). A subscriber whose seals cannot be opened (a version-1 seal, one
 * made for another origin, a missing key) is reported; if it already runs (`running`), it keeps
 * its last good member.
 */
export async function fleetMembers(
  snapshot: CatalogSnapshot,
  selection: FleetSelection,
  running: ReadonlyMap<string, FleetMember> = new Map(),
  derivations: RecordDerivations = new RecordDerivations(),
): Promise<{ members: FleetMember[]; problems: MemberProblem[] }> {
  const members: FleetMember[] = [];
  const problems: MemberProblem[] = [];
  for (const [name, record] of snapshot.subscribers) {
    if (record.state.kind !== 'active' || !(selection.match?.(name) ?? true)) continue;
    // A pull subscriber's events are leased over the API, which runs its group: no pusher does.
    if (isPullDefinition(record.definition)) continue;
    try {
      members.push(await memberOf(record, snapshot, selection, derivations));
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      problems.push({
        name,
        error: `${typeof code === 'string' ? `${code}: ` : ''}${err instanceof Error ? err.message : String(err)}`,
      });
      const last = running.get(name);
      if (last) members.push(last);
    }
  }
  return { members, problems };
}

/** What a record alone decides: its topology, and a digest of its definition for the fingerprint. */
interface RecordDerived {
  readonly eventsTopic: string;
  readonly topology: SubscriberTopology;
  readonly definitionDigest: string;
}

/**
 * What each catalog record alone decides, kept per record object. A snapshot keeps the object of
 * a record that did not change, and a fleet looks at its whole catalog every few seconds (failed
 * starts, expiring keys): a thousand topologies built anew each time were a tenth of a fleet's
 * CPU while it joined its groups. Secrets are still resolved each time (a file or variable can
 * change, a rotation's previous key expires).
 */
export class RecordDerivations {
  readonly #byRecord = new WeakMap<SubscriberRecord, RecordDerived>();

  of(record: SubscriberRecord, eventsTopic: string): RecordDerived {
    const known = this.#byRecord.get(record);
    if (known?.eventsTopic === eventsTopic) return known;
    const derived = {
      eventsTopic,
      topology: new SubscriberTopology(record.definition, eventsTopic),
      definitionDigest: createHash('sha256').update(JSON.stringify(record.definition)).digest('hex'),
    };
    this.#byRecord.set(record, derived);
    return derived;
  }
}

async function memberOf(
  record: SubscriberRecord,
  snapshot: CatalogSnapshot,
  selection: FleetSelection,
  derivations: RecordDerivations,
): Promise<FleetMember> {
  const { topology, definitionDigest } = derivations.of(record, selection.eventsTopic);
  const keys = await resolveSigningKeys(record, {
    secretsKey: selection.secretsKey,
    ...(selection.env ? { env: selection.env } : {}),
    ...(selection.now ? { now: selection.now } : {}),
  });
  const signingKeys = keys ? [keys.current, ...keys.previous] : [];
  const managedHeaders = openManagedHeaders(record, selection.secretsKey);
  const managedCredentials = openManagedCredentials(record, selection.secretsKey);
  const fingerprint = createHash('sha256')
    .update(definitionDigest)
    .update(signingKeys.map((k) => k.toString('hex')).join(','))
    .update(JSON.stringify(managedHeaders))
    .update(JSON.stringify(managedCredentials))
    .digest('hex');
  const name = record.definition.name;
  return {
    topology,
    signingKeys,
    managedHeaders,
    managedCredentials,
    fingerprint,
    registration: registrationOf(snapshot, registrationKey(name, selection.eventsTopic)),
  };
}

/** What the snapshot says of one registration key, an unreadable latest record included. */
function registrationOf(snapshot: CatalogSnapshot, key: string): KnownRegistration {
  const registeredAt = snapshot.registeredAt.get(key) ?? null;
  const problem = snapshot.problems.find((p) => p.key === key);
  return registeredAt === null && problem ? { registeredAt, unreadable: problem.error } : { registeredAt };
}

/** `--match` globs: `*` any run of characters, `?` one; several patterns separated by commas. */
export function nameMatcher(patterns: string): (name: string) => boolean {
  const regexes = patterns
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map(
      (p) =>
        new RegExp(
          `^${p
            .split('')
            .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
            .join('')}$`,
        ),
    );
  return (name) => regexes.some((r) => r.test(name));
}
