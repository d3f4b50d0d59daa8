/**
 * The base of every hookstream error: a stable `code` to branch on and `canRetry`, whether
 * doing the same thing again unchanged could succeed (a broker away: yes; a bad setting: no).
 * The CLI reports them all in one place from these two fields.
 */
export class HookstreamError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly canRetry: boolean;

  constructor(code: Code, message: string, canRetry: boolean, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.canRetry = canRetry;
  }
}
