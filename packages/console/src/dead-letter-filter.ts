import { type DlqSelection, parseSelectionFlags } from '@hookstream/replay';

/** The filter fields, named like `hookstream dlq list`'s flags. */
export const FILTER_FIELDS = ['event-id', 'reason', 'status', 'since', 'until', 'limit'] as const;

/** A dead-letter filter from a query string or form, parsed by the CLI's own flag parser. */
export function selectionFromParams(params: URLSearchParams, nowMs: number): DlqSelection {
  const many = (name: string) =>
    params
      .getAll(name)
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const one = (name: string) => {
    const v = params.get(name)?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  return parseSelectionFlags(
    {
      'event-id': many('event-id'),
      reason: many('reason'),
      status: many('status'),
      since: one('since'),
      until: one('until'),
      limit: one('limit'),
    },
    nowMs,
  );
}

/** The filter's own fields only, to carry it from the list to its replay form. */
export function filterParams(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of FILTER_FIELDS)
    for (const v of params.getAll(name)) if (v.trim() !== '') out.append(name, v);
  return out;
}
