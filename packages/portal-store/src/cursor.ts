import { PortalStoreError } from './errors.ts';

/** A place in a newest-first list: the last message shown (its first_at, then its id). */
export interface ListPosition {
  readonly firstAt: number;
  readonly id: number;
}

/** Opaque to callers: they pass back what a page gave them. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`${position.firstAt}.${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): ListPosition {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (match === null) throw new PortalStoreError('BAD_CURSOR', 'not a cursor this list gave', false);
  return { firstAt: Number(match[1]), id: Number(match[2]) };
}
