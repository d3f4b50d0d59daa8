import { readFile } from 'node:fs/promises';
import { type SubscriberRecord, sealOriginOf } from '@hookstream/contracts';
import { nameMatcher } from '@hookstream/pusher-core';
import {
  auditRecordOf,
  CatalogError,
  type CatalogSnapshot,
  checkCatalog,
  knownSubscriber,
  loadSecretsKey,
  type ResealOutcome,
  requireSecretsKey,
  resealRecord,
  type SubscriberCatalog,
  withCredentialValue,
  withHeaderValue,
} from '@hookstream/subscribers';
import { formatTable } from '@hookstream/terminal';
import { rethrow, writeAudit } from './cli-audit.ts';
import { printJson } from './subscribers-output.ts';
import { toolActor } from './tool-env.ts';

/** What these actions read of the command line. */
export interface SealOptions {
  readonly 'secrets-key-file'?: string | undefined;
  readonly 'value-file'?: string | undefined;
  readonly 'dry-run'?: boolean;
  readonly all?: boolean;
  readonly match?: string | undefined;
  readonly json?: boolean;
}

/** The snapshot of only the names --match takes (all without it): fleets split by --match may hold other keys. */
function matching(snapshot: CatalogSnapshot, match: string | undefined): CatalogSnapshot {
  if (match === undefined) return snapshot;
  const takes = nameMatcher(match);
  return {
    ...snapshot,
    subscribers: new Map([...snapshot.subscribers].filter(([name]) => takes(name))),
    problems: snapshot.problems.filter((p) => takes(p.key)),
  };
}

/**
 * `subscribers check`: the records today's rules refuse or a fleet skips, and why. Opens the
 * seals too when the secrets key is at hand. Exit code 1 when there is any, so a script can stop
 * an upgrade on it.
 */
export async function checkCommand(catalog: SubscriberCatalog, values: SealOptions): Promise<number> {
  const secretsKey = await loadSecretsKey({ keyFile: values['secrets-key-file'] });
  const check = checkCatalog(matching(await catalog.read(), values.match), { secretsKey, now: new Date() });
  if (values.json) printJson(check);
  else {
    const versions = Object.entries(check.versions)
      .map(([v, n]) => `${n} of version ${v}`)
      .join(', ');
    const lines = [
      `${check.checked} record(s) checked${versions === '' ? '' : ` (${versions})`}${
        check.sealsOpened ? '; every seal opened' : '; seals not opened (no secrets key given)'
      }`,
    ];
    if (check.findings.length > 0)
      lines.unshift(
        formatTable(
          ['name', 'version', 'verdict', 'why', 'fix'],
          check.findings.map((f) => [
            f.name,
            f.version === null ? '-' : String(f.version),
            f.verdict,
            f.why,
            f.fix,
          ]),
        ),
        '',
      );
    else lines.push('nothing refused or skipped');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return check.findings.length === 0 ? 0 : 1;
}

/**
 * `subscribers reseal <name> | --all`: every record moved to the current version, its version-1
 * seals sealed again for the current binding. All records are worked out before any is written:
 * a seal that does not open is reported, and the others are written (exit code 1).
 */
export async function resealCommand(
  catalog: SubscriberCatalog,
  target: string | undefined,
  values: SealOptions,
): Promise<number> {
  if ((target === undefined) === !values.all)
    throw new CatalogError('BAD_OPTION', 'give one <name>, or --all', false);
  if (values.match !== undefined && !values.all)
    throw new CatalogError('BAD_OPTION', '--match only applies with --all', false);
  const key = requireSecretsKey(
    await loadSecretsKey({ keyFile: values['secrets-key-file'] }),
    'subscribers reseal',
  );
  const snapshot = matching(await catalog.read(), values.match);
  const records: SubscriberRecord[] =
    target === undefined ? [...snapshot.subscribers.values()] : [knownSubscriber(snapshot, target)];
  const now = new Date();
  const outcomes: (
    | ResealOutcome
    | { name: string; origin: string; from: number; action: 'failed'; error: string }
  )[] = [];
  for (const record of records) {
    try {
      outcomes.push(resealRecord(record, key, now));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const origin = sealOriginOf(record.definition);
      outcomes.push({ name: record.definition.name, origin, from: record.version, action: 'failed', error });
    }
  }
  const writes = outcomes.flatMap((o) => ('record' in o && o.record !== null ? [o.record] : []));
  const dryRun = values['dry-run'] === true;
  let auditFailure: unknown = null;
  if (!dryRun) {
    await catalog.write(writes);
    auditFailure = await writeAudit(
      writes.map((after) =>
        auditRecordOf({
          actor: toolActor(),
          action: 'subscriber.resealed',
          subscriber: after.definition.name,
          before: snapshot.subscribers.get(after.definition.name),
          after,
          now,
        }),
      ),
    );
  }
  const failed = outcomes.filter((o) => o.action === 'failed').length;
  if (values.json)
    printJson({
      dryRun,
      written: dryRun ? 0 : writes.length,
      subscribers: outcomes.map(({ name, origin, from, action, ...rest }) => ({
        name,
        origin,
        from,
        action,
        ...('error' in rest ? { error: rest.error } : {}),
      })),
    });
  else
    process.stdout.write(
      `${formatTable(
        ['name', 'version', 'sealed for', 'action'],
        outcomes.map((o) => [
          o.name,
          String(o.from),
          o.origin,
          'error' in o ? `failed: ${o.error}` : o.action,
        ]),
      )}\n\n${writes.length} record(s) ${dryRun ? 'would be ' : ''}written, ${failed} failed${
        dryRun ? ' (dry run: nothing written)' : ''
      }\n`,
    );
  rethrow(auditFailure);
  return failed === 0 ? 0 : 1;
}

/** `subscribers header set <name> <header>`: the value from --value-file, else stdin, sealed. */
export async function headerSetCommand(
  catalog: SubscriberCatalog,
  name: string,
  header: string,
  values: SealOptions,
): Promise<number> {
  const key = requireSecretsKey(
    await loadSecretsKey({ keyFile: values['secrets-key-file'] }),
    `the managed header ${header} of "${name}"`,
  );
  const record = knownSubscriber(await catalog.read(), name);
  const value = (await readValue(values['value-file'])).replace(/\r?\n$/, '');
  const now = new Date();
  const next = withHeaderValue(record, key, header, value, now);
  await catalog.write([next]);
  const auditFailure = await writeAudit([
    auditRecordOf({
      actor: toolActor(),
      action: 'subscriber.header_sealed',
      subscriber: name,
      before: record,
      after: next,
      detail: { header },
      now,
    }),
  ]);
  if (values.json) printJson({ name, header, sealed: true });
  else process.stdout.write(`${name}: header ${header} sealed; fleets use it within seconds\n`);
  rethrow(auditFailure);
  return 0;
}

/** `subscribers credential set <name> <credential>`: the value from --value-file, else stdin, sealed. */
export async function credentialSetCommand(
  catalog: SubscriberCatalog,
  name: string,
  credential: string,
  values: SealOptions,
): Promise<number> {
  const key = requireSecretsKey(
    await loadSecretsKey({ keyFile: values['secrets-key-file'] }),
    `the managed credential ${credential} of "${name}"`,
  );
  const record = knownSubscriber(await catalog.read(), name);
  const read = await readValue(values['value-file']);
  // A PEM ends with its newline; a client secret read from a file should not.
  const value = credential === 'clientCertificate.key' ? read : read.replace(/\r?\n$/, '');
  const now = new Date();
  const next = withCredentialValue(record, key, credential, value, now);
  await catalog.write([next]);
  const auditFailure = await writeAudit([
    auditRecordOf({
      actor: toolActor(),
      action: 'subscriber.credential_sealed',
      subscriber: name,
      before: record,
      after: next,
      detail: { credential },
      now,
    }),
  ]);
  if (values.json) printJson({ name, credential, sealed: true });
  else process.stdout.write(`${name}: ${credential} sealed; fleets use it within seconds\n`);
  rethrow(auditFailure);
  return 0;
}

/** At most this much is read for one header value (the contract takes 8 KiB; the rest is refused). */
const MAX_VALUE_READ = 65_536;

async function readValue(file: string | undefined): Promise<string> {
  if (file !== undefined) {
    try {
      return (await readFile(file, 'utf8')).slice(0, MAX_VALUE_READ);
    } catch (err) {
      throw new CatalogError(
        'BAD_OPTION',
        `--value-file: cannot read ${file}: ${(err as Error).message}`,
        false,
      );
    }
  }
  if (process.stdin.isTTY)
    throw new CatalogError(
      'BAD_OPTION',
      'give the value on stdin (not a terminal) or with --value-file',
      false,
    );
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_VALUE_READ) break;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_VALUE_READ);
}
