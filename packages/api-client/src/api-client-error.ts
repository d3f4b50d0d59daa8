import { HookstreamError } from '@hookstream/contracts';

/** A field and what is wrong with it, as the API's error `details` list them. */
export interface ApiErrorDetail {
  readonly path: string;
  readonly message: string;
}

/**
 * A call of the management API failed. `code` is the API's error code (`not_found`,
 * `precondition_failed`, `rate_limited`…) when it answered, else the client's own:
 * `invalid_options` (the client's settings), `invalid_request` / `invalid_definition` (refused
 * before sending: nothing was sent), `unreachable` and `timeout` (no answer), `invalid_answer`
 * (an answer its schema does not describe: the client and the server disagree).
 */
export class ApiClientError extends HookstreamError<string> {
  /** The HTTP status; null when no answer came (or nothing was sent). */
  readonly status: number | null;
  readonly details: readonly ApiErrorDetail[];
  /** The server's Retry-After, in ms: a hint of when the same call may succeed. */
  readonly retryAfterMs: number | null;
  /** The route's operationId (the client's method). */
  readonly operation: string;

  constructor(
    code: string,
    message: string,
    options: {
      readonly operation: string;
      readonly status?: number | null;
      readonly canRetry?: boolean;
      readonly details?: readonly ApiErrorDetail[];
      readonly retryAfterMs?: number | null;
      readonly cause?: unknown;
    },
  ) {
    const details = options.details ?? [];
    // The details in the message too: a CLI printing only the message still names the fields.
    const said =
      details.length === 0
        ? ''
        : ` (${details.map((d) => `${d.path || '(body)'}: ${d.message}`).join('; ')})`;
    super(code, `${message}${said}`, options.canRetry ?? false, { cause: options.cause });
    this.status = options.status ?? null;
    this.details = details;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.operation = options.operation;
  }
}
