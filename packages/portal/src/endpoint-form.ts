import { ManagementError } from '@hookstream/management';

/** The fields of an endpoint a customer edits: everything else of its definition stays as it is. */
export interface EndpointFields {
  readonly url: string;
  readonly eventTypes: readonly string[];
  /** undefined: no filter (every event of its types). */
  readonly filter: unknown;
  readonly ratePerSecond: number;
}

/** A form's fields, bounded and parsed; a bad one is named (422), and nothing is written. */
export function endpointFields(form: URLSearchParams): EndpointFields {
  const url = (form.get('url') ?? '').trim();
  const eventTypes = (form.get('eventTypes') ?? '')
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const filterText = (form.get('filter') ?? '').trim();
  const rate = Number((form.get('ratePerSecond') ?? '').trim() || '50');
  if (url === '') throw invalid('url', 'an http(s) URL is required');
  if (eventTypes.length === 0) throw invalid('eventTypes', 'at least one event type');
  if (eventTypes.length > 100) throw invalid('eventTypes', 'at most 100 event types');
  if (!Number.isFinite(rate) || rate <= 0 || rate > 100_000)
    throw invalid('ratePerSecond', 'a number of requests per second, above 0 and at most 100000');
  let filter: unknown;
  if (filterText !== '') {
    if (filterText.length > 16_384) throw invalid('filter', 'at most 16384 characters');
    try {
      filter = JSON.parse(filterText);
    } catch {
      throw invalid('filter', 'a JSON filter (see the event catalogue), or nothing');
    }
  }
  return { url, eventTypes, filter, ratePerSecond: rate };
}

/**
 * The definition to PUT: the endpoint's current one (as GET shows it) with the form's fields.
 * A new endpoint gets a managed secret, so it is signed from its first delivery.
 */
export function definitionWith(
  current: Record<string, unknown> | null,
  fields: EndpointFields,
): Record<string, unknown> {
  const base: Record<string, unknown> = current === null ? { secret: { managed: true } } : { ...current };
  const rate =
    typeof base.rate === 'object' && base.rate !== null ? (base.rate as Record<string, unknown>) : {};
  const next: Record<string, unknown> = {
    ...base,
    url: fields.url,
    eventTypes: [...fields.eventTypes],
    rate: { ...rate, perSecond: fields.ratePerSecond },
  };
  if (fields.filter === undefined) delete next.filter;
  else next.filter = fields.filter;
  return next;
}

function invalid(path: string, message: string): ManagementError {
  return new ManagementError('invalid_definition', `${path}: ${message}`, { details: [{ path, message }] });
}
