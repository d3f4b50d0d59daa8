import { formatTable } from '@hookstream/terminal';

/** One dead letter as `dlq list` prints it, from Kafka or from the API. */
export interface DeadLetterRow {
  readonly eventId: string;
  readonly type: string;
  readonly tenant: string | null;
  readonly reason: string;
  readonly attempts: string;
  readonly status: string;
  readonly age: string;
  readonly dlq: string;
  readonly problem: string | null;
}

/** The table of `dlq list`: a tenant or problem column only when some row has one. */
export function deadLetterTable(rows: readonly DeadLetterRow[]): string {
  const withTenants = rows.some((r) => r.tenant !== null);
  const withProblems = rows.some((r) => r.problem !== null);
  const headers = [
    'event id',
    'type',
    ...(withTenants ? ['tenant'] : []),
    'reason',
    'attempts',
    'status',
    'age',
    'dlq',
    ...(withProblems ? ['problem'] : []),
  ];
  return formatTable(
    headers,
    rows.map((r) => [
      r.eventId,
      r.type,
      ...(withTenants ? [r.tenant ?? '-'] : []),
      r.reason,
      r.attempts,
      r.status,
      r.age,
      r.dlq,
      ...(withProblems ? [r.problem ?? ''] : []),
    ]),
  );
}
