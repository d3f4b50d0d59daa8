import { CatalogError } from './errors.ts';

/**
 * A conditional catalog write that did not apply: the subscriber's revision was not the one it
 * expected (someone else wrote first). Retrying the same write cannot help; read again.
 */
export class RevisionMismatchError extends CatalogError {
  /** The revision in effect when the write was refused; null when the subscriber has none. */
  readonly current: string | null;

  constructor(name: string, expected: string, current: string | null) {
    super(
      'REVISION_MISMATCH',
      `subscriber ${name}: expected revision ${expected}, but it is ${current ?? 'absent'}`,
      false,
    );
    this.current = current;
  }
}
