import {
  isRegistrationKey,
  managedCredentialNames,
  managedHeaderNames,
  recordVersionFor,
  type SubscriberRecord,
} from '@hookstream/contracts';
import type { CatalogSnapshot } from './catalog-records.ts';
import { openManagedCredentials } from './credential-seals.ts';
import { resealManagedSecret, revealManagedSecret } from './managed-secret.ts';
import { openSecret, requireCurrentBinding, sealBindingOf } from './secret-box.ts';
import type { SecretsKey } from './secrets-key.ts';

/**
 * `refused`: the latest record breaks a rule of the definition (apply refuses such a
 * definition, and the fleet skips the record); `skipped`: the record is valid but a fleet does
 * not run it until an operator acts.
 */
export type CheckVerdict = 'refused' | 'skipped';

export interface CheckFinding {
  readonly name: string;
  /** The record's version; null when it cannot be read at all. */
  readonly version: number | null;
  readonly verdict: CheckVerdict;
  readonly why: string;
  readonly fix: string;
}

export interface CatalogCheck {
  /** Subscriber records read (unreadable ones included). */
  readonly checked: number;
  /** How many readable records are of each version. */
  readonly versions: Readonly<Record<string, number>>;
  /** False without a secrets key: seals were not opened, only their versions looked at. */
  readonly sealsOpened: boolean;
  readonly findings: readonly CheckFinding[];
}

/** The subscriber records of a snapshot that today's rules refuse or a fleet would skip, and why. Pure. */
export function checkCatalog(
  snapshot: CatalogSnapshot,
  options: { readonly secretsKey: SecretsKey | undefined; readonly now: Date },
): CatalogCheck {
  const findings: CheckFinding[] = [];
  const problems = snapshot.problems.filter((p) => !isRegistrationKey(p.key));
  for (const p of problems)
    findings.push({
      name: p.key,
      version: null,
      verdict: 'refused',
      why: `${p.error}${snapshot.subscribers.has(p.key) ? ' (fleets keep running its earlier record)' : ''}`,
      fix: 'apply a definition that keeps the rules (env references: HOOKSTREAM_HEADER_… / HOOKSTREAM_SECRET_…)',
    });
  const versions: Record<string, number> = {};
  for (const [name, record] of snapshot.subscribers) {
    versions[record.version] = (versions[record.version] ?? 0) + 1;
    const finding = (why: string, fix: string): CheckFinding => ({
      name,
      version: record.version,
      verdict: 'skipped',
      why,
      fix,
    });
    if (record.version === 1 && record.secret !== undefined && 'managed' in record.secret) {
      findings.push(
        finding(
          'its managed secret is sealed by an earlier hookstream, bound to its name only',
          'hookstream subscribers reseal --all',
        ),
      );
      continue;
    }
    const missing = managedHeaderNames(record.definition).filter(
      (h) => record.sealedHeaders?.[h] === undefined,
    );
    for (const h of missing)
      findings.push(
        finding(
          `header ${h} is managed and has no value yet`,
          `hookstream subscribers header set ${name} ${h}`,
        ),
      );
    const missingCredentials = managedCredentialNames(record.definition).filter(
      (c) => record.sealedCredentials?.[c] === undefined,
    );
    for (const c of missingCredentials)
      findings.push(
        finding(`${c} is managed and has no value yet`, `hookstream subscribers credential set ${name} ${c}`),
      );
    if (options.secretsKey === undefined || missing.length > 0 || missingCredentials.length > 0) continue;
    try {
      openSeals(record, options.secretsKey, options.now);
    } catch (err) {
      findings.push(
        finding(err instanceof Error ? err.message : String(err), 'apply the definition again, or rotate'),
      );
    }
  }
  return {
    checked: snapshot.subscribers.size + problems.filter((p) => !snapshot.subscribers.has(p.key)).length,
    versions,
    sealsOpened: options.secretsKey !== undefined,
    findings,
  };
}

/** Opens every seal a current record holds; throws the first that does not open. */
function openSeals(record: SubscriberRecord, key: SecretsKey, now: Date): void {
  const managed = record.secret !== undefined && 'managed' in record.secret ? record.secret : null;
  const headers = Object.entries(record.sealedHeaders ?? {});
  if (managed === null && headers.length === 0 && record.sealedCredentials === undefined) return;
  const binding = requireCurrentBinding(sealBindingOf(record));
  if (managed !== null) revealManagedSecret(key, binding, managed, now);
  for (const [name, seal] of headers) openSecret(key, binding, { kind: 'header', name }, seal);
  openManagedCredentials(record, key);
}

export interface ResealOutcome {
  readonly name: string;
  /**
   * The URL origin its seals are bound to. A version-1 seal never bound one, so `reseal` binds
   * the record's URL as it finds it: what to look at before writing (`--dry-run`).
   */
  readonly origin: string;
  /** The version the record had. */
  readonly from: number;
  /**
   * `resealed`: its seals moved to the new binding; `rewritten`: a version 1 without seals,
   * rewritten as the current version; `current`: nothing to do.
   */
  readonly action: 'resealed' | 'rewritten' | 'current';
  /** The record to write; null when current. */
  readonly record: SubscriberRecord | null;
}

/**
 * A record moved to the current version: a version-1 managed secret (bound to the name only)
 * sealed again for the name, the URL's origin and each seal's role. A current record's seals
 * are opened, to be sure they hold (a managed header without a value has none to move: check
 * lists it). Throws (a coded CatalogError) when a seal does not open.
 */
export function resealRecord(record: SubscriberRecord, key: SecretsKey, now: Date): ResealOutcome {
  const name = record.definition.name;
  const origin = sealBindingOf(record).origin;
  // Versions after 1 share version 2's seals: only a version-1 record has anything to move.
  if (record.version !== 1) {
    openSeals(record, key, now);
    return { name, origin, from: record.version, action: 'current', record: null };
  }
  const to = { ...sealBindingOf(record), version: 2 } as const;
  const secret = record.secret;
  const resealed = secret !== undefined && 'managed' in secret;
  const next: SubscriberRecord = {
    ...record,
    version: recordVersionFor(record.definition),
    ...(resealed ? { secret: resealManagedSecret(key, sealBindingOf(record), to, secret, now) } : {}),
    updatedAt: now.toISOString(),
  };
  return { name, origin, from: record.version, action: resealed ? 'resealed' : 'rewritten', record: next };
}
