import { parseArgs } from 'node:util';
import { DEFAULT_EVENTS_TOPIC, DEFAULT_RETENTION_WARNING_MS, SubscriberName } from '@hookstream/contracts';
import { readDeadLetters } from '@hookstream/dead-letter-tools';
import { refuseWhatTheFleetCannotRead } from '@hookstream/management';
import {
  applyAuditRecords,
  CatalogError,
  commitSubscriberStart,
  DEFAULT_ROTATION_GRACE_MS,
  describeSecret,
  formatHeadroomCell,
  knownSubscriber,
  loadDefinitionFiles,
  loadSecretsKey,
  nameCollisions,
  OPERATOR,
  type PlannedSubscriber,
  planApply,
  planDelete,
  publicRecord,
  readInstanceStatuses,
  recordsForPlan,
  refuseUnavailableNames,
  SubscriberCatalog,
  subscriberDetail,
  subscriberOverviewsWithHeadroom,
} from '@hookstream/subscribers';
import { formatTable } from '@hookstream/terminal';
import { rethrow, writeAudit } from './cli-audit.ts';
import { toolKafka } from './kafka-client.ts';
import { withLocalManagement } from './local-management.ts';
import { remoteApi } from './remote-api.ts';
import { REMOTE_ALLOWED, remoteSubscribers } from './remote-subscribers.ts';
import {
  confirmPurge,
  describeState,
  formatCount,
  formatDelay,
  formatInstances,
  parseDuration,
  printApply,
  printDeleted,
  printJson,
  printProblems,
  printSecrets,
  publicPlan,
} from './subscribers-output.ts';
import { rewindCommand } from './subscribers-rewind.ts';
import { checkCommand, credentialSetCommand, headerSetCommand, resealCommand } from './subscribers-seals.ts';
import { toolActor, toolEnv } from './tool-env.ts';
import { formatAge, reportToolError } from './tool-errors.ts';

export const SUBSCRIBERS_USAGE = `Usage: hookstream subscribers apply <file.json|dir> [--dry-run] [--secrets-key-file <path>] [--json]
       hookstream subscribers list [--topic <events topic>] [--json]
       hookstream subscribers show <name> [--topic <events topic>] [--json]
       hookstream subscribers pause <name> [--reason <text>] [--by <who>] [--json]
       hookstream subscribers resume <name> [--by <who>] [--topic <events topic>] [--json]
       hookstream subscribers delete <name> [--purge [--yes]] [--json]
       hookstream subscribers rewind <name> --to <time|earliest|partition:offset,…> [--dry-run] [--by <who>] [--topic <events topic>] [--json]
       hookstream subscribers secret show <name> [--secrets-key-file <path>] [--json]
       hookstream subscribers secret rotate <name> [--grace <age>] [--secrets-key-file <path>] [--json]
       hookstream subscribers header set <name> <header> [--value-file <path>] [--secrets-key-file <path>] [--json]
       hookstream subscribers credential set <name> oauth2.clientSecret|clientCertificate.key [--value-file <path>] [--secrets-key-file <path>] [--json]
       hookstream subscribers check [--match <globs>] [--secrets-key-file <path>] [--json]
       hookstream subscribers reseal (<name> | --all [--match <globs>]) [--dry-run] [--secrets-key-file <path>] [--json]
       hookstream subscribers apply|list|show|pause|resume|delete|rewind|secret show|secret rotate … --api <url>  (HOOKSTREAM_API_TOKEN)

The subscriber catalog: one record per subscriber in the compacted topic hookstream.subscribers
(its definition, its state, how its requests are signed), which a pusher fleet runs.

apply     validates every definition first (a file, or every *.json of a directory); one bad
          definition refuses the whole apply, naming the file and the field, and nothing is
          written. Then writes the new and changed ones and prints created / changed / unchanged
          per name. The state (paused…) and an existing managed secret are kept.
            --dry-run   show what would change (field by field) and write nothing
list      state, URL host, event types, lag on the events topic, age of the oldest record its
          pushers hold unsettled, retention headroom (time until the topic's retention reaches
          the first record it has not settled, paused or not; "unbounded" without retention;
          "(bytes, 1h rate)" when retention.bytes comes first), DLQ depth, its destination's
          circuit breaker (closed, open, half-open: the worst its instances report) and which
          pusher instances run it (as they report to hookstream.instances every 5 s; a killed
          instance drops out after 15 s)
show      the definition (secrets never shown), state, tiers, ledger position and retention
          headroom per partition
pause     stops delivery, keeping the group and its ledger (--reason, --by: who; default $USER)
resume    continues from the ledger; a subscriber hookstream disabled (410 Gone, failure for
          its disableAfterMs) is enabled again and subscriber.enabled is published onto the
          events topic's notices topic, hookstream.notices.<events topic> (--topic; --by: who,
          default $USER)
delete    removes the record (a managed secret goes with it); the group, tiers and DLQ stay,
          and the name stays bound to its tenant (or to none): no other may take it.
            --purge     also deletes the group (the ledger), the tier, DLQ and replay-log
                        topics and the ledger-lost registrations, and frees the name (also
                        of one deleted before); stop its pushers first.
                        Asks for the name again on a terminal; --yes skips that
rewind    delivers again from the events topic from --to (an ISO time, earliest, or
          partition:offset,…), event ids unchanged; a ledger already before it stays (a rewind
          never skips). An active subscriber is paused while its ledger moves, then resumed; a
          paused one stays paused. Records already in its retry tiers go on as they are. Says per
          partition how many events are sent again and what retention already deleted (exit 3
          then). Written to the audit trail, and each event it sends again has its attempt log
          steps marked with who rewound and when (hookstream ledger shows it; --by: who,
          default $USER).
            --dry-run   print the events per partition that would be sent again; move nothing
secret    show: the managed secret (and previous ones still signing) in clear text, or where an
          env/file secret comes from. rotate: a new managed secret; the old one keeps signing
          (requests carry both signatures) for --grace (default 24h; 0 drops it at once, at most 30d)
header    set: seals the value of a header its definition declares {"managed": true}, read
          from --value-file or else stdin (a trailing newline is dropped)
credential  set: seals an outbound credential its definition declares {"managed": true}:
          oauth2.clientSecret (text) or clientCertificate.key (a PEM private key), read from
          --value-file or else stdin (a client secret's trailing newline is dropped)
check     lists the records today's rules refuse (an {"env": …} reference without the
          HOOKSTREAM_HEADER_ / HOOKSTREAM_SECRET_ prefix, …) or that a fleet skips (a seal made
          by an earlier version, a managed header without a value; with the secrets key, a seal
          that does not open), and why. Exit code 1 when it lists any
            --match     only the names matching these globs (as push --all --match)
reseal    moves the seals of earlier versions (bound to the name only) to today's binding (the
          name, the URL's origin and what each seal is) and rewrites older records as today's
          version; --all: every record. Fleets refuse the old seals
            --dry-run   show what would be written, and write nothing

Over the management API (docs/api.md), with no Kafka settings on this machine: --api <url> (or
HOOKSTREAM_API_URL) and the bearer token in HOOKSTREAM_API_TOKEN run apply (one file), list, show,
pause (--reason), resume, delete (--purge --yes), rewind (--to, --dry-run), secret show and
secret rotate (--grace) as that token may: the operator's sees every subscriber, a tenant's its
own. The others need Kafka. The API records the token as who made the change (--by does not
apply), measures and rewinds on its own events topic (--topic does not apply), and its apply has
no dry run; list shows the API's columns (no host, event types or instances). Without --api,
pause, resume, delete, rewind, secret show (of a managed secret, recorded as read in the audit
trail first) and secret rotate run the API's own service layer on this machine's Kafka.

Managed secrets ("secret": {"managed": true}) and headers are sealed with AES-256-GCM under the
key in HOOKSTREAM_SECRETS_KEY (base64 of 32 bytes: openssl rand -base64 32) or --secrets-key-file.
  --topic <name>   the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --json           for scripts

Exit codes: 0 done; 1 refused or failed (invalid definitions, unknown subscriber, secrets key
missing or wrong, Kafka; check: something listed); 2 bad command line.`;

const OPTIONS = {
  'dry-run': { type: 'boolean', default: false },
  to: { type: 'string' },
  'secrets-key-file': { type: 'string' },
  topic: { type: 'string' },
  reason: { type: 'string' },
  by: { type: 'string' },
  purge: { type: 'boolean', default: false },
  yes: { type: 'boolean', default: false },
  grace: { type: 'string' },
  'value-file': { type: 'string' },
  match: { type: 'string' },
  all: { type: 'boolean', default: false },
  api: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parse>['values'];

/** Which options each action takes (besides --json and --help). */
const ALLOWED: Record<string, readonly (keyof typeof OPTIONS)[]> = {
  apply: ['dry-run', 'secrets-key-file'],
  list: ['topic'],
  show: ['topic'],
  pause: ['reason', 'by'],
  resume: ['by', 'topic'],
  delete: ['purge', 'yes'],
  rewind: ['to', 'dry-run', 'topic', 'by'],
  'secret show': ['secrets-key-file'],
  'secret rotate': ['grace', 'secrets-key-file'],
  'header set': ['value-file', 'secrets-key-file'],
  'credential set': ['value-file', 'secrets-key-file'],
  check: ['match', 'secrets-key-file'],
  reseal: ['all', 'match', 'dry-run', 'secrets-key-file'],
};

function parse(args: readonly string[]) {
  return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true });
}

function bad(message: string): CatalogError {
  return new CatalogError('BAD_OPTION', message, false);
}

/** `hookstream subscribers <action>`. */
export async function subscribersCommand(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h') return help(0);
  let action = first ?? '';
  let args = rest;
  if (action === 'secret' || action === 'header' || action === 'credential') {
    const [sub, ...more] = rest;
    if (sub === '--help' || sub === '-h') return help(0);
    action = `${action} ${sub ?? ''}`;
    args = more;
  }
  if (!(action in ALLOWED)) {
    if (first !== undefined) process.stderr.write(`hookstream subscribers: unknown action '${action}'\n`);
    return help(2);
  }
  const { values, positionals } = parse(args);
  if (values.help) return help(0);
  const command = `subscribers ${action}`;
  try {
    // Settings parsed once, first: a missing HOOKSTREAM_API_TOKEN stops the command before anything.
    const api = remoteApi(values.api, process.env);
    if (api !== null && !(action in REMOTE_ALLOWED))
      throw bad(
        `${action} does not work over --api (there: ${Object.keys(REMOTE_ALLOWED).join(', ')}); run it where Kafka is reachable`,
      );
    const allowed: readonly string[] = (api === null ? ALLOWED[action] : REMOTE_ALLOWED[action]) ?? [];
    for (const [option, value] of Object.entries(values) as [keyof typeof OPTIONS, unknown][])
      if (
        option !== 'json' &&
        option !== 'help' &&
        option !== 'api' &&
        value !== undefined &&
        value !== false &&
        !allowed.includes(option)
      )
        throw bad(`--${option} does not apply to ${action}${api === null ? '' : ' over --api'}`);
    const go = (target: string) =>
      api === null ? run(action, target, values) : remoteSubscribers(api, action, target, values);
    if (action === 'list' || action === 'check') {
      if (positionals.length > 0) throw bad(`${action} takes no argument, got '${positionals.join(' ')}'`);
      return await go('');
    }
    if (action === 'reseal') {
      const [name, ...others] = positionals;
      if (others.length > 0) throw bad(`one name at most, got also '${others.join(' ')}'`);
      if (name !== undefined && !SubscriberName.safeParse(name).success)
        throw bad(`'${name}' is not a subscriber name`);
      return await resealCommand(new SubscriberCatalog(toolKafka('hookstream-subscribers')), name, values);
    }
    if (action === 'credential set' || action === 'header set') {
      // Both seal a value into one subscriber's record: <name> and what the value is for.
      const what = action === 'header set' ? '<header>' : 'oauth2.clientSecret|clientCertificate.key';
      const [name, field, ...others] = positionals;
      if (name === undefined || field === undefined) throw bad(`<name> and ${what} are required`);
      if (others.length > 0) throw bad(`two arguments only, got also '${others.join(' ')}'`);
      if (!SubscriberName.safeParse(name).success) throw bad(`'${name}' is not a subscriber name`);
      const set = action === 'header set' ? headerSetCommand : credentialSetCommand;
      return await set(new SubscriberCatalog(toolKafka('hookstream-subscribers')), name, field, values);
    }
    const [target, ...extra] = positionals;
    if (target === undefined)
      throw bad(action === 'apply' ? '<file.json|dir> is required' : '<name> is required');
    if (extra.length > 0) throw bad(`one argument only, got also '${extra.join(' ')}'`);
    if (action !== 'apply' && !SubscriberName.safeParse(target).success)
      throw bad(`'${target}' is not a subscriber name`);
    return await go(target);
  } catch (err) {
    if (err instanceof CatalogError && err.code === 'BAD_OPTION') {
      process.stderr.write(`hookstream ${command}: ${err.message}\n`);
      return 2;
    }
    return reportToolError(command, err);
  }
}

function help(code: number): number {
  (code === 0 ? process.stdout : process.stderr).write(`${SUBSCRIBERS_USAGE}\n`);
  return code;
}

function eventsTopic(values: Values): string {
  return values.topic ?? toolEnv().HOOKSTREAM_EVENTS_TOPIC;
}

async function run(action: string, target: string, values: Values): Promise<number> {
  const kafka = toolKafka('hookstream-subscribers');
  const catalog = new SubscriberCatalog(kafka);
  switch (action) {
    case 'apply':
      return apply(kafka, catalog, target, values);
    case 'list':
      return list(kafka, catalog, values);
    case 'check':
      return checkCommand(catalog, values);
    case 'show':
      return show(kafka, catalog, target, values);
    case 'pause':
    case 'resume':
      return setState(action, target, values);

    case 'delete':
      return remove(catalog, target, values);
    case 'rewind':
      return rewindCommand(target, { to: values.to, dryRun: values['dry-run'], json: values.json }, (ask) =>
        withLocalManagement({ eventsTopic: eventsTopic(values), by: values.by }, (service, caller) =>
          service.rewind(caller, target, ask),
        ),
      );
    default:
      return secret(catalog, action === 'secret rotate' ? 'rotate' : 'show', target, values);
  }
}

async function apply(
  kafka: ReturnType<typeof toolKafka>,
  catalog: SubscriberCatalog,
  target: string,
  values: Values,
): Promise<number> {
  const { files, problems } = await loadDefinitionFiles(target);
  if (problems.length > 0) {
    if (values.json) printJson({ written: false, problems });
    for (const p of problems) process.stderr.write(`${p.path}: ${p.error}\n`);
    process.stderr.write(
      `hookstream subscribers apply: ${problems.length} invalid definition(s); nothing was written\n`,
    );
    return 1;
  }
  const secretsKey = await loadSecretsKey({ keyFile: values['secrets-key-file'] });
  const snapshot = await catalog.read();
  refuseUnavailableNames(
    snapshot,
    files.map((f) => f.spec),
    OPERATOR,
  );
  const plan = planApply(snapshot.subscribers, files);
  const dryRun = values['dry-run'];
  await refuseWhatTheFleetCannotRead(plan, () => readInstanceStatuses(kafka));
  // Built before anything is written: a missing secrets key refuses the whole apply.
  const now = new Date();
  const records = dryRun ? [] : recordsForPlan(plan, snapshot.subscribers, { now, secretsKey });
  let auditFailure: unknown = null;
  if (!dryRun) {
    await commitStarts(kafka, plan, eventsTopic(values));
    await catalog.write(records);
    auditFailure = await writeAudit(applyAuditRecords(snapshot.subscribers, records, toolActor(), now));
  }
  if (values.json)
    printJson({ dryRun, written: !dryRun && records.length > 0, subscribers: plan.map(publicPlan) });
  else printApply(plan, dryRun);
  rethrow(auditFailure);
  return 0;
}

/** New subscribers' start positions, committed before their records are written (as the API does). */
async function commitStarts(
  kafka: ReturnType<typeof toolKafka>,
  plan: readonly PlannedSubscriber[],
  topic: string,
): Promise<void> {
  const created = plan.filter((p) => p.action === 'created');
  if (created.length === 0) return;
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const p of created) await commitSubscriberStart(kafka, admin, p.definition, topic);
  } finally {
    await admin.disconnect();
  }
}

async function list(
  kafka: ReturnType<typeof toolKafka>,
  catalog: SubscriberCatalog,
  values: Values,
): Promise<number> {
  const snapshot = await catalog.read();
  const topic = eventsTopic(values);
  const { rows, headroomError } = await subscriberOverviewsWithHeadroom(
    kafka,
    snapshot.subscribers.values(),
    {
      eventsTopic: topic,
      nowMs: Date.now(),
    },
  );
  const collisions = nameCollisions(snapshot);
  if (values.json) {
    printJson({
      eventsTopic: topic,
      subscribers: rows,
      problems: snapshot.problems,
      nameCollisions: collisions,
      ...(headroomError === null ? {} : { retentionHeadroomError: headroomError }),
    });
    return 0;
  }
  printProblems(snapshot);
  printNameCollisions(collisions);
  if (headroomError !== null) process.stderr.write(`retention headroom not measured: ${headroomError}\n\n`);
  if (rows.length === 0) {
    process.stdout.write('no subscribers in the catalog (add some with hookstream subscribers apply)\n');
    return 0;
  }
  const table = rows.map((r) => [
    r.name,
    r.state.kind,
    r.host,
    r.eventTypes.join(','),
    formatCount(r.lag),
    r.oldestUnsettledAgeMs === null ? '-' : formatAge(r.oldestUnsettledAgeMs),
    formatHeadroomCell(r.retentionHeadroomSeconds, r.retentionHeadroomBasis),
    formatCount(r.dlqDepth),
    r.breaker ?? '-',
    formatInstances(r.instances, r.failedOn.length),
  ]);
  const headers = [
    'name',
    'state',
    'host',
    'event types',
    `lag (${topic})`,
    'oldest unsettled',
    'retention headroom',
    'dlq',
    'breaker',
    'instances',
  ];
  process.stdout.write(`${formatTable(headers, table)}\n\n${rows.length} subscriber(s)\n`);
  return 0;
}

/** Pairs held from before twins were refused: they share topics, so the operator must part them. */
function printNameCollisions(collisions: readonly string[][]): void {
  if (collisions.length === 0) return;
  process.stderr.write(
    `${collisions.length} group(s) of names Kafka cannot tell apart ('.' against '_'); their subscribers share topics, delete all but one of each:\n`,
  );
  for (const names of collisions) process.stderr.write(`  ${names.join('  ')}\n`);
  process.stderr.write('\n');
}

async function show(
  kafka: ReturnType<typeof toolKafka>,
  catalog: SubscriberCatalog,
  name: string,
  values: Values,
): Promise<number> {
  const record = knownSubscriber(await catalog.read(), name);
  const topic = eventsTopic(values);
  const detail = await subscriberDetail(kafka, record, topic);
  // The gaps are `lost` dead letters: read only when the DLQ holds something.
  const gaps = (detail.dlqDepth ?? 0) > 0 ? lostGaps(await readDeadLetters(kafka, name)) : [];
  if (values.json) {
    printJson({ ...publicRecord(record), eventsTopic: topic, ...detail, gaps });
    return 0;
  }
  const { definition } = publicRecord(record);
  const out = [
    `subscriber ${name}: ${describeState(record.state)}`,
    `created ${record.createdAt}, updated ${record.updatedAt}`,
    `secret: ${describeSecret(record)}`,
    '',
    JSON.stringify(definition, null, 2),
    '',
  ];
  if (detail.ledger === null) out.push(`ledger: the events topic ${topic} does not exist`);
  else
    out.push(
      `ledger of group hookstream.sub.${name} on ${topic}:`,
      formatTable(
        ['partition', 'committed', 'end', 'lag', 'oldest owed', 'retention headroom'],
        detail.ledger.map((p) => [
          String(p.partition),
          p.committed ?? '-',
          p.end,
          formatCount(p.lag),
          p.oldestOwedAt ?? '-',
          formatHeadroomCell(p.retentionHeadroomSeconds, p.retentionHeadroomBasis),
        ]),
      ),
    );
  if (detail.retentionHeadroomError !== null)
    out.push(`retention headroom not measured: ${detail.retentionHeadroomError}`);
  else
    out.push(
      `retention headroom: ${formatHeadroomCell(detail.retentionHeadroomSeconds, detail.retentionHeadroomBasis)} (warning below ${formatDelay(record.definition.retentionWarningMs ?? DEFAULT_RETENTION_WARNING_MS)})`,
    );
  out.push(
    '',
    formatTable(
      ['tier', 'topic', 'delay', 'waiting'],
      detail.tiers.map((t) => [
        String(t.tier),
        t.topic,
        formatDelay(t.delayMs),
        t.exists ? String(t.waiting ?? 0) : '(not created)',
      ]),
    ),
  );
  if (detail.unlistedTiers.length > 0)
    out.push(
      '',
      'tiers no longer in the definition (read until drained; their records retry by the current schedule):',
      formatTable(
        ['tier', 'topic', 'waiting'],
        detail.unlistedTiers.map((t) => [String(t.tier), t.topic, String(t.waiting)]),
      ),
    );
  out.push('', `dlq: ${detail.dlqDepth === null ? '(not created)' : `${detail.dlqDepth} record(s)`}`);
  if (gaps.length > 0)
    out.push(
      '',
      'gaps: events retention deleted before the subscriber read them (dlq list --reason lost):',
      formatTable(
        ['topic', 'partition', 'from', 'to', 'lost', 'found', 'dlq'],
        gaps.map((g) => [
          g.topic,
          String(g.partition),
          g.lostFrom,
          g.lostTo,
          String(g.lostCount),
          g.foundAt,
          g.dlq,
        ]),
      ),
    );
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

async function setState(action: 'pause' | 'resume', name: string, values: Values): Promise<number> {
  const result = await withLocalManagement(
    { eventsTopic: eventsTopic(values), by: values.by },
    (service, caller) => service.changeState(caller, name, { action, reason: values.reason }),
  );
  if (values.json)
    printJson({
      name,
      changed: result.changed,
      state: result.state,
      ...(result.published === null ? {} : { published: result.published }),
      ...(result.noticeError === null ? {} : { noticeError: result.noticeError }),
    });
  else
    process.stdout.write(
      !result.changed
        ? `${name} is already active\n`
        : `${name}: ${action === 'pause' ? 'paused' : 'active'}\n`,
    );
  // The resume happened: said plainly, with what did not.
  if (result.noticeError !== null)
    process.stderr.write(
      `hookstream subscribers resume: ${name} is active, but subscriber.enabled could not be published: ${result.noticeError}\n`,
    );
  return 0;
}

/** The operator's delete: without --purge the name stays bound to its tenant (docs/subscribers.md). */
async function remove(catalog: SubscriberCatalog, name: string, values: Values): Promise<number> {
  if (values.yes && !values.purge) throw bad('--yes only applies with --purge');
  // Refuses an unknown name before asking for a confirmation.
  planDelete(await catalog.read(), name, OPERATOR, { purge: values.purge, now: new Date() });
  if (values.purge && !values.yes && !(await confirmPurge(name))) return 1;
  const result = await withLocalManagement({ eventsTopic: eventsTopic(values) }, (service, caller) =>
    service.deleteSubscriber(caller, name, { purge: values.purge }),
  );
  if (values.json) printJson(result);
  else printDeleted(name, result);
  return 0;
}

async function secret(
  catalog: SubscriberCatalog,
  action: 'show' | 'rotate',
  name: string,
  values: Values,
): Promise<number> {
  const graceMs =
    values.grace === undefined ? DEFAULT_ROTATION_GRACE_MS : parseDuration('--grace', values.grace);
  if (action === 'rotate') {
    const secretsKey = await loadSecretsKey({ keyFile: values['secrets-key-file'] });
    const open = await withLocalManagement(
      { eventsTopic: eventsTopic(values), ...(secretsKey === undefined ? {} : { secretsKey }) },
      (service, caller) => service.rotateSecret(caller, name, graceMs),
    );
    printSecrets({ ...open, rotated: true }, values);
    return 0;
  }
  const record = knownSubscriber(await catalog.read(), name);
  const state = record.secret;
  if (state === undefined || !('managed' in state)) {
    if (values.json) printJson({ name, managed: false, secret: state ?? null });
    else process.stdout.write(`${name}: ${describeSecret(record)}\n`);
    return 0;
  }
  // The API's own read: shown only once its subscriber.secret_read record is in the trail.
  const secretsKey = await loadSecretsKey({ keyFile: values['secrets-key-file'] });
  const open = await withLocalManagement(
    { eventsTopic: eventsTopic(values), ...(secretsKey === undefined ? {} : { secretsKey }) },
    (service, caller) => service.revealSecret(caller, name),
  );
  printSecrets({ ...open, rotated: false }, values);
  return 0;
}

/** The `lost` dead letters as the ranges they stand for, oldest first. */
function lostGaps(letters: Awaited<ReturnType<typeof readDeadLetters>>) {
  return letters.flatMap((l) => {
    const e = l.evidence;
    if (e?.reason !== 'lost') return [];
    return [
      {
        topic: e.origin.topic,
        partition: e.origin.partition,
        lostFrom: e.lostFrom ?? e.origin.offset,
        lostTo: e.lostTo ?? '?',
        lostCount: e.lostCount ?? 0,
        lastCommitAt: e.lastCommitAt ?? null,
        foundAt: e.deadLetteredAt,
        dlq: `${l.location.partition}:${l.location.offset}`,
      },
    ];
  });
}
