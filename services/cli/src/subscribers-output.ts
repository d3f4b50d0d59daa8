import { createInterface } from 'node:readline/promises';
import { redactUrl, type SubscriberState } from '@hookstream/contracts';
import {
  CatalogError,
  type CatalogSnapshot,
  formatChange,
  type PlannedSubscriber,
  publicChange,
} from '@hookstream/subscribers';
import { formatTable } from '@hookstream/terminal';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plan as `apply --json` prints it: the URL redacted in the definition and in the changes. */
export function publicPlan(p: PlannedSubscriber) {
  return {
    ...p,
    definition: {
      ...p.definition,
      ...(p.definition.url === undefined ? {} : { url: redactUrl(p.definition.url) }),
    },
    changes: p.changes.map(publicChange),
  };
}

/** created / changed / unchanged per name; the field changes under changed (and created, in a dry run). */
export function printApply(plan: readonly PlannedSubscriber[], dryRun: boolean): void {
  const lines: string[] = [];
  for (const p of plan) {
    const notes = [
      ...(p.generatesSecret ? ['generates a managed secret'] : []),
      ...(p.reseals ? ["seals again for the URL's new origin"] : []),
    ];
    const note = notes.length === 0 ? '' : ` (${notes.join('; ')})`;
    lines.push(`${dryRun ? `would be ${p.action}` : p.action}  ${p.name}  (${p.file})${note}`);
    if (p.action === 'changed' || (dryRun && p.action === 'created'))
      for (const c of p.changes) lines.push(`    ${formatChange(c)}`);
    for (const h of p.headersWithoutValue)
      lines.push(
        `    header ${h} is managed and has no value yet: hookstream subscribers header set ${p.name} ${h}`,
      );
  }
  const count = (a: string) => plan.filter((p) => p.action === a).length;
  lines.push(
    '',
    `${count('created')} created, ${count('changed')} changed, ${count('unchanged')} unchanged${
      dryRun ? ' (dry run: nothing written)' : ''
    }`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Records that cannot be read, on stderr: the catalog still lists the others. */
export function printProblems(snapshot: CatalogSnapshot): void {
  if (snapshot.problems.length === 0) return;
  process.stderr.write(
    `${formatTable(
      ['unreadable record', 'at', 'problem'],
      snapshot.problems.map((p) => [p.key, p.offset ?? '?', p.error]),
    )}\n\n`,
  );
}

export function formatCount(n: number | null): string {
  return n === null ? '-' : String(n);
}

/** The instances running a subscriber, and how many report it failed; '-' when none runs it. */
export function formatInstances(instances: readonly string[], failed: number): string {
  const running = instances.length === 0 ? '-' : instances.join(',');
  return failed === 0 ? running : `${running} (failed on ${failed})`;
}

export function formatDelay(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `0`, `90s`, `30m`, `24h`, `7d` → milliseconds; anything else is a bad option. */
export function parseDuration(option: string, text: string): number {
  const m = /^(\d{1,7})(ms|s|m|h|d)?$/.exec(text.trim());
  const unit = UNITS[m?.[2] ?? (m?.[1] === '0' ? 'ms' : '')];
  if (m === null || unit === undefined)
    throw new CatalogError('BAD_OPTION', `${option}: '${text}' is not a duration like 30m, 24h or 7d`, false);
  return Number(m[1]) * unit;
}

/** A subscriber's state for people: who paused it and why, or why hookstream disabled it. */
export function describeState(state: SubscriberState): string {
  if (state.kind === 'active') return 'active';
  if (state.kind === 'paused')
    return `paused by ${state.by} at ${state.at}: ${state.reason || '(no reason)'}`;
  return `disabled at ${state.at}: ${state.reason}`;
}

/** What a delete did, as `subscribers delete` says it (on Kafka or over --api). */
export function printDeleted(
  name: string,
  result: { deleted: boolean; bound: boolean; purged: { group?: unknown; topics?: unknown } | null },
): void {
  if (result.deleted) process.stdout.write(`${name}: deleted from the catalog\n`);
  if (result.bound)
    process.stdout.write(
      `${name}: the name stays bound to its tenant while its group, tiers or DLQ exist (delete ${name} --purge frees it)\n`,
    );
  if (result.purged !== null) {
    const topics = Array.isArray(result.purged.topics) ? result.purged.topics.map(String) : [];
    process.stdout.write(
      `purged group ${String(result.purged.group)}${topics.length > 0 ? ` and topics ${topics.join(', ')}` : ''}; the name is free\n`,
    );
  }
}

/**
 * Asks for the name again before a purge; false (and said) when it is not typed. Off a terminal
 * it refuses: --yes confirms there.
 */
export async function confirmPurge(name: string): Promise<boolean> {
  if (!process.stdin.isTTY)
    throw new CatalogError(
      'BAD_OPTION',
      '--purge deletes the ledger and topics: pass --yes to confirm',
      false,
    );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(
    `This deletes ${name}'s group (its ledger), tier, DLQ and replay-log topics. Type its name to confirm: `,
  );
  rl.close();
  if (answer.trim() === name) return true;
  process.stderr.write('not confirmed; nothing deleted\n');
  return false;
}

/** A managed secret and the previous ones still signing, in clear (rotate, show; local or over the API). */
export function printSecrets(
  open: {
    readonly name: string;
    readonly current: string;
    readonly createdAt: string;
    readonly previous: readonly { readonly secret: string; readonly expiresAt: string }[];
    readonly rotated: boolean;
    readonly auditError?: string | undefined;
  },
  values: { readonly json: boolean },
): void {
  const { rotated, auditError, ...secrets } = open;
  if (values.json) printJson({ ...secrets, managed: true, rotated });
  else {
    process.stdout.write(
      `${rotated ? 'rotated; new ' : ''}current secret (since ${open.createdAt}):\n  ${open.current}\n`,
    );
    for (const p of open.previous)
      process.stdout.write(`previous secret, still signing until ${p.expiresAt}:\n  ${p.secret}\n`);
  }
  // Shown first: the rotation happened, and its holder needs the secret. Then exit 1.
  if (auditError !== undefined)
    throw new CatalogError(
      'AUDIT_NOT_WRITTEN',
      `the rotation's audit record was not written: ${auditError}`,
      true,
    );
}
