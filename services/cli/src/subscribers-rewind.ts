import type { RewindAsk } from '@hookstream/management';
import { CatalogError, describeMove, parseRewindTarget, type RewindResult } from '@hookstream/subscribers';
import { formatTable } from '@hookstream/terminal';

/** Exit code: rewound (or counted), but retention had deleted part of the wanted range. */
export const PART_OF_RANGE_GONE = 3;

export interface RewindOptions {
  readonly to: string | undefined;
  readonly dryRun: boolean;
  readonly json: boolean;
}

/** A rewind's answer, from this machine's Kafka or over the API (the same shape). */
type Rewound = Pick<RewindResult, 'name' | 'plan' | 'applied' | 'pausedForIt'> & {
  readonly resumed?: boolean | undefined;
};

/**
 * `hookstream subscribers rewind <name> --to <time|earliest|partition:offset,…>`: re-delivers
 * from the events topic from there (ids unchanged). An active subscriber is paused while its
 * ledger moves and resumed after; a paused one stays paused. Exit 3 when part of the wanted
 * range was deleted by retention (it is said per partition), 0 otherwise. `run` rewinds: the
 * management service on this machine's Kafka, or the API.
 */
export async function rewindCommand(
  name: string,
  options: RewindOptions,
  run: (ask: RewindAsk) => Promise<Rewound>,
): Promise<number> {
  if (options.to === undefined)
    throw new CatalogError('BAD_OPTION', '--to <time|earliest|partition:offset,…> is required', false);
  try {
    // Checked here first: a --to that does not parse is a bad command line (exit 2), as a bad option is.
    parseRewindTarget(options.to);
  } catch (err) {
    if (err instanceof CatalogError) throw new CatalogError('BAD_OPTION', err.message, false);
    throw err;
  }
  const result = await run({ to: options.to, dryRun: options.dryRun });
  print(result, options);
  if (result.resumed === false)
    process.stderr.write(
      `${name}: its state changed while its ledger moved (disabled or paused again); it was left as it is, not resumed\n`,
    );
  return result.plan.rangeDeleted ? PART_OF_RANGE_GONE : 0;
}

function print(result: Rewound, options: RewindOptions): void {
  const { plan } = result;
  // Said on stderr for people and scripts alike: the exit code is 1 for it.
  if (plan.rangeDeleted)
    process.stderr.write(
      `part of the wanted range is gone (retention deleted it): ${plan.partitions
        .filter((p) => p.deleted === null || p.deleted > 0)
        .map((p) => `partition ${p.partition}: ${p.deleted ?? 'some'} record(s)`)
        .join('; ')}\n`,
    );
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...result, dryRun: options.dryRun }, null, 2)}\n`);
    return;
  }
  const rows = plan.partitions.map((p) => [
    String(p.partition),
    p.from === null ? 'none' : String(p.from),
    String(p.to),
    String(p.resend),
    p.deleted === null ? 'some (uncounted)' : String(p.deleted),
  ]);
  process.stdout.write(
    `${formatTable(['partition', 'ledger', 'rewound to', 'sent again', 'deleted by retention'], rows)}\n`,
  );
  const what = options.dryRun
    ? `dry run: ${plan.resend} event(s) would be sent again`
    : result.applied
      ? `${result.name}: rewound (${plan.partitions.map(describeMove).join(', ')}), ${plan.resend} event(s) to be sent again${result.pausedForIt ? '; paused for the move, resumed' : ''}`
      : `${result.name}: nothing to move`;
  process.stdout.write(`${what}\n`);
}
