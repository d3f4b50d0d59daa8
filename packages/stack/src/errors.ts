import { HookstreamError } from '@hookstream/contracts';
export type StackErrorCode =
  | 'TOOL_MISSING'
  | 'TOOL_TOO_OLD'
  | 'PORT_TAKEN'
  | 'INSTALL_FAILED'
  | 'START_FAILED'
  | 'NOT_READY'
  | 'BAD_CONFIG'
  /** Another process kept the stack's lock past the timeout. */
  | 'STACK_BUSY'
  /** A running component is of another version than this checkout pins (HOOKSTREAM_STACK_MISMATCH). */
  | 'VERSION_MISMATCH'
  /** Manifests that could not even be read for validation (invalid ones are results, not errors). */
  | 'BAD_MANIFEST'
  /** A caller's value out of its bounds. */
  | 'BAD_ARGUMENT';

/** A stack problem with a code and a hint a person can act on. */
export class StackError extends HookstreamError<StackErrorCode> {
  constructor(code: StackErrorCode, message: string, options: { canRetry?: boolean; cause?: unknown } = {}) {
    super(code, message, options.canRetry ?? false, options);
  }
}
