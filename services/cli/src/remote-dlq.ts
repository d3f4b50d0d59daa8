import type { ApiClient, DeadLetterList, Job } from '@hookstream/api-client';
import { HookstreamError } from '@hookstream/contracts';
import { type DlqSelection, ReplayProgress } from '@hookstream/replay';
import { formatTable } from '@hookstream/terminal';
import { deadLetterTable } from './dead-letter-table.ts';
import { printJson } from './subscribers-output.ts';
import { formatAge } from './tool-errors.ts';

/** The API's largest page: `dlq list` over --api without --limit asks for this many, oldest first. */
const API_MAX_LIMIT = 1000;

/** The selection as the API's query and replay body take it (times as RFC 3339). */
function apiSelection(selection: DlqSelection) {
  return {
    eventIds: selection.eventIds,
    reasons: selection.reasons,
    statuses: selection.statuses,
    ...(selection.sinceMs === undefined ? {} : { since: new Date(selection.sinceMs).toISOString() }),
    ...(selection.untilMs === undefined ? {} : { until: new Date(selection.untilMs).toISOString() }),
  };
}

/** `dlq list` over the management API: the same table as on Kafka, from the API's dead letters. */
export async function remoteDlqList(
  api: ApiClient,
  subscriber: string,
  selection: DlqSelection,
  json: boolean,
): Promise<number> {
  const s = apiSelection(selection);
  const limit = selection.limit ?? API_MAX_LIMIT;
  const { items } = await api.listDeadLetters(subscriber, {
    eventId: s.eventIds,
    reason: s.reasons,
    status: s.statuses,
    ...(s.since === undefined ? {} : { since: s.since }),
    ...(s.until === undefined ? {} : { until: s.until }),
    limit,
  });
  // Without --limit the API's page may have cut the list: said, so nobody takes it for all of them.
  const cut = selection.limit === undefined && items.length >= limit;
  if (json) {
    printJson({ subscriber, api: api.baseUrl, count: items.length, truncated: cut, deadLetters: items });
    return 0;
  }
  if (items.length === 0) {
    process.stdout.write(`no dead letters of ${subscriber} match\n`);
    return 0;
  }
  const now = Date.now();
  const rows = items.map((l) => ({
    eventId: l.eventId ?? '-',
    type: lostRange(l) ?? l.eventType ?? '-',
    tenant: l.tenant,
    reason: text(l.evidence?.reason) ?? '?',
    attempts: text(l.evidence?.attempts) ?? '?',
    status: text(l.evidence?.status) ?? '-',
    age: formatAge(now - Date.parse(l.deadLetteredAt)),
    dlq: l.dlq,
    problem: l.problem,
  }));
  process.stdout.write(
    `${deadLetterTable(rows)}\n\n${items.length} dead letter(s) of ${subscriber}${
      cut ? ` (the oldest ${limit}: narrow with --since or --limit)` : ''
    }\n`,
  );
  return 0;
}

/**
 * `dlq replay` over the management API: starts the job, follows it to its end (progress on
 * stderr), prints its summary. The API takes the replay lease and writes the audit record.
 */
export async function remoteDlqReplay(
  api: ApiClient,
  subscriber: string,
  options: { selection: DlqSelection; json: boolean; dryRun: boolean; again: boolean },
): Promise<number> {
  const started = await api.replayDeadLetters(subscriber, {
    ...apiSelection(options.selection),
    ...(options.selection.limit === undefined ? {} : { limit: options.selection.limit }),
    dryRun: options.dryRun,
    again: options.again,
  });
  const progress = new ReplayProgress(process.stderr);
  const job = await api.waitForJob(started.id, {
    onProgress: (j) => {
      if (j.total !== null) progress.update(j.done, j.total);
    },
  });
  for (const w of job.warnings) process.stderr.write(`warning: ${w}\n`);
  if (options.json) printJson(job);
  if (job.state === 'failed')
    // The API's job error, as `dlq replay` on Kafka would have thrown it (a held lease, …).
    throw new HookstreamError(
      'REPLAY_FAILED',
      `replay job ${job.id} failed: ${job.error ?? 'no reason given'}`,
      false,
    );
  if (!options.json) printSummary(job, options.dryRun);
  return 0;
}

function printSummary(job: Job, dryRun: boolean): void {
  const s = job.summary ?? {};
  const list = (k: string) => (Array.isArray(s[k]) ? (s[k] as Record<string, unknown>[]) : []);
  const replayed = list('replayed');
  if (replayed.length > 0)
    process.stdout.write(
      `${formatTable(
        ['event id', 'dlq record', dryRun ? 'would go to' : 'replayed to'],
        replayed.map((r) => [text(r.eventId) ?? '-', text(r.dlq) ?? '?', text(r.detail) ?? '']),
      )}\n\n`,
    );
  for (const u of list('unreplayable'))
    process.stdout.write(
      `cannot replay ${text(u.dlq) ?? '?'} (${text(u.eventId) ?? 'no event id'}): ${text(u.detail) ?? ''}\n`,
    );
  const skipped = list('alreadyReplayed').length;
  process.stdout.write(
    `${dryRun ? 'would replay' : 'replayed'} ${replayed.length} to ${text(s.topic) ?? '?'}; skipped ${skipped} already replayed${
      skipped > 0 ? ' (--again to force)' : ''
    }; ${list('unreplayable').length} unreplayable; ${text(s.selected) ?? '?'} selected${
      dryRun ? ' (dry run: nothing written)' : ` (replay ${text(s.replayId) ?? '?'}, job ${job.id})`
    }\n`,
  );
}

/** A `lost` record's range, in the type column: it has no event (and so no type). */
function lostRange(l: DeadLetterList['items'][number]): string | null {
  const e = l.evidence;
  if (e?.reason !== 'lost') return null;
  const origin = (e.origin ?? {}) as Record<string, unknown>;
  return `${text(e.lostCount) ?? '?'} lost: ${text(origin.topic) ?? '?'}:${text(origin.partition) ?? '?'} ${
    text(e.lostFrom) ?? '?'
  }..${text(e.lostTo) ?? '?'}`;
}

/** A value of an open record (evidence, a summary) as text; null when absent. */
function text(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}
