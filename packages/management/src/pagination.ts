import { MAX_PAGE_LIMIT } from '@hookstream/api-schemas';
import { SubscriberName } from '@hookstream/contracts';
import { ManagementError } from './errors.ts';

/** A page of names in order, and the cursor of the next one (null: this was the last). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

/**
 * A cursor is the last name of the page before (names sort in code-unit order and never hold a
 * comma or a space): a page is stable as names come and go, and any name is a cursor, so a
 * client never holds one the API cannot take.
 */
export function encodeCursor(after: string): string {
  return after;
}

export function decodeCursor(cursor: string): string {
  if (!SubscriberName.safeParse(cursor).success)
    throw new ManagementError(
      'invalid_cursor',
      'the cursor is not a subscriber name (take nextCursor as given)',
    );
  return cursor;
}

/** The page after the cursor of `items` sorted by `nameOf` (code-unit order, as the cursor compares). Pure. */
export function pageOf<T>(
  items: readonly T[],
  nameOf: (item: T) => string,
  options: { readonly limit: number; readonly cursor?: string | undefined },
): Page<T> {
  if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > MAX_PAGE_LIMIT)
    throw new ManagementError('invalid_request', `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`);
  const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
  const sorted = [...items].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
  const rest = after === null ? sorted : sorted.filter((i) => nameOf(i) > after);
  const page = rest.slice(0, options.limit);
  const last = page.at(-1);
  return {
    items: page,
    nextCursor: rest.length > page.length && last !== undefined ? encodeCursor(nameOf(last)) : null,
  };
}
