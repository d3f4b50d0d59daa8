import type { KafkaConnection } from '@hookstream/kafka';
import {
  CatalogError,
  describeMove,
  parseRewindTarget,
  type RewindResult,
  rewindSubscriber,
  type SubscriberCatalog,
} from '@hookstream/subscribers';
import { formatTable } from '@hookstream/terminal';
import { cliAudit } from './cli-audit.ts';
import { openNoticePublisher } from './notice-publisher.ts';
import { operatorName } from './tool-env.ts';

/** Exit code: rewound (or counted), but retention had deleted part of the wanted range. */
export const PART_OF_RANGE_GONE = 3;

export interface RewindOptions {
  readonly to: string | undefined;
  readonly dryRun: boolean;
  readonly eventsTopic: string;
  readonly by: string | undefined;
  readonly json: boolean;
}

/**
 * `hookstream subscribers rewind <name> --to <time|earliest|partition:offset,…>`: re-delivers
 * from the events topic from there (ids unchanged). An active subscriber is paused while its
 * ledger moves and resumed after; a paused one stays paused. Exit 3 when part of the wanted
 * range was deleted by retention (it is said per partition), 0 otherwise.
 */
export async function rewindCommand(
  kafka: KafkaConnection,
  catalog: SubscriberCatalog,
  name: string,
  options: RewindOptions,
): Promise<number> {
  if (options.to === undefined)
    throw new CatalogError('BAD_OPTION', '--to <time|earliest|partition:offset,…> is required', false);
  let target: ReturnType<typeof parseRewindTarget>;
  try {
    target = parseRewindTarget(options.to);
  } catch (err) {
    // A --to that does not parse is a bad command line (exit 2), as a bad option is.
    if (err instanceof CatalogError) throw new CatalogError('BAD_OPTION', err.message, false);
    throw err;
  }
  const admin = kafka.admin();
  await admin.connect();
  let result: RewindResult;
  try {
    result = await rewindSubscriber(
      {
        catalog,
        admin,
        audit: cliAudit(),
        groupEmptied: (n, timeoutMs) => catalog.groupEmptied(n, timeoutMs),
        openPublisher: () => openNoticePublisher('cli', options.eventsTopic),
      },
      {
        name,
        target,
        targetText: options.to,
        dryRun: options.dryRun,
        eventsTopic: options.eventsTopic,
        by: options.by ?? operatorName(),
        now: new Date(),
      },
    );
  } finally {
    await admin.disconnect();
  }
  print(result, options);
  if (result.resumed === false)
    process.stderr.write(
      `${name}: its state changed while its ledger moved (disabled or paused again); it was left as it is, not resumed\n`,
    );
  return result.plan.rangeDeleted ? PART_OF_RANGE_GONE : 0;
}

function print(result: RewindResult, options: RewindOptions): void {
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
