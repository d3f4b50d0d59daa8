export type StackErrorCode =
  | 'TOOL_MISSING'
  | 'TOOL_TOO_OLD'
  | 'PORT_TAKEN'
  | 'INSTALL_FAILED'
  | 'START_FAILED'
  | 'NOT_READY'
  | 'BAD_CONFIG';

/** A stack problem with a code and a hint a person can act on. */
export class StackError extends Error {
  readonly code: StackErrorCode;
  /** True when running the same command again may succeed without changing anything. */
  readonly canRetry: boolean;

  constructor(code: StackErrorCode, message: string, options: { canRetry?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StackError';
    this.code = code;
    this.canRetry = options.canRetry ?? false;
  }
}
