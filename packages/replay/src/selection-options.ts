import { DeadLetterReason, EventId } from '@hookstream/contracts';
import { ReplayError } from './errors.ts';
import { type DlqSelection, StatusMatch } from './selection.ts';

/** The selection flags as `node:util` parseArgs hands them over. */
export interface SelectionFlags {
  readonly 'event-id'?: readonly string[] | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly reason?: readonly string[] | undefined;
  readonly status?: readonly string[] | undefined;
  readonly limit?: string | undefined;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `2026-05-01T10:00:00Z` (RFC 3339 with offset) or an age like `90m`, `2h`, `7d` (that long ago). */
export function parseInstant(option: string, text: string, nowMs: number): number {
  const age = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (age) return nowMs - Number(age[1]) * (UNIT_MS[age[2] ?? ''] ?? Number.NaN);
  if (/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new ReplayError(
    'BAD_OPTION',
    `--${option}: '${text}' is neither an RFC 3339 time with offset nor an age like 30m, 2h, 7d`,
  );
}

/** Turns the command-line flags into a selection; a bad value names its option (BAD_OPTION). */
export function parseSelectionFlags(flags: SelectionFlags, nowMs: number): DlqSelection {
  const eventIds = (flags['event-id'] ?? []).map((id) => {
    if (!EventId.safeParse(id).success)
      throw new ReplayError('BAD_OPTION', `--event-id: '${id}' is not an event id`);
    return id;
  });
  const reasons = (flags.reason ?? []).map((r) => {
    const parsed = DeadLetterReason.safeParse(r);
    if (!parsed.success)
      throw new ReplayError(
        'BAD_OPTION',
        `--reason: '${r}' is not one of ${DeadLetterReason.options.join(', ')}`,
      );
    return parsed.data;
  });
  const statuses = (flags.status ?? []).map((s) => {
    if (!StatusMatch.safeParse(s).success)
      throw new ReplayError(
        'BAD_OPTION',
        `--status: '${s}' is not an HTTP status (404), a class (5xx) or none`,
      );
    return s;
  });
  let limit: number | undefined;
  if (flags.limit !== undefined) {
    if (!/^\d+$/.test(flags.limit) || Number(flags.limit) < 1)
      throw new ReplayError('BAD_OPTION', `--limit: '${flags.limit}' is not a positive whole number`);
    limit = Number(flags.limit);
  }
  const sinceMs = flags.since === undefined ? undefined : parseInstant('since', flags.since, nowMs);
  const untilMs = flags.until === undefined ? undefined : parseInstant('until', flags.until, nowMs);
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs >= untilMs)
    throw new ReplayError('BAD_OPTION', '--since must be before --until');
  return {
    eventIds,
    reasons,
    statuses,
    ...(sinceMs === undefined ? {} : { sinceMs }),
    ...(untilMs === undefined ? {} : { untilMs }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/** `--rate`: records per second, `50` or `50/s`; fractions allowed (`0.5` is one every 2 s). */
export function parseRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(text);
  const rate = m ? Number(m[1]) : Number.NaN;
  if (!(rate > 0))
    throw new ReplayError('BAD_OPTION', `--rate: '${text}' is not a positive rate like 50 or 50/s`);
  return rate;
}
