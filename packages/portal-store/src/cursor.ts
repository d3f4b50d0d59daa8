import { PortalStoreError } from './errors.ts';

/** A place in a newest-first list: the last message shown (its first_at, then its id). */
export interface ListPosition {
  readonly firstAt: number;
  readonly id: number;
}

/**
 * Callers pass back what a page gave them. Plain digits, so that any cursor of the API's form
 * (MessageCursor) is one the list can start after: a made-up one starts at a made-up place.
 */
export function encodeCursor(position: ListPosition): string {
  return `${position.firstAt}.${position.id}`;
}

export function decodeCursor(cursor: string): ListPosition {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(cursor);
  if (match === null) throw new PortalStoreError('BAD_CURSOR', 'not a cursor this list gave', false);
  return { firstAt: Number(match[1]), id: Number(match[2]) };
}
