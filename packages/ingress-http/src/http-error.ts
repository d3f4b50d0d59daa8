import { HookstreamError } from '@hookstream/contracts';
import type { PublishErrorDetail } from '@hookstream/producer';
import { PublishError } from '@hookstream/producer';

/** An HTTP answer other than success, with the JSON body `{ error: { code, message, details? } }`. */
export class HttpError extends HookstreamError {
  readonly status: number;
  readonly details: readonly unknown[];
  /** Seconds, for 503 and 429. */
  readonly retryAfterS: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: readonly unknown[]; retryAfterS?: number } = {},
  ) {
    super(code, message, status === 503 || status === 429);
    this.status = status;
    this.details = options.details ?? [];
    this.retryAfterS = options.retryAfterS ?? null;
  }

  body(): { error: { code: string; message: string; details?: readonly unknown[] } } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}

/** The error table: what a publish failure means to an HTTP client. */
export function httpErrorFor(err: unknown, retryAfterS: number): HttpError {
  if (err instanceof HttpError) return err;
  if (!(err instanceof PublishError)) return new HttpError(500, 'internal', 'internal error');
  const details: readonly PublishErrorDetail[] = err.details;
  const code = err.code.toLowerCase();
  switch (err.code) {
    case 'INVALID_REQUEST':
    case 'INVALID_DATA':
    case 'RESERVED_FIELD':
    case 'UNKNOWN_TYPE':
      return new HttpError(400, code, err.message, { details });
    case 'RESERVED_TYPE':
      return new HttpError(403, code, err.message, { details });
    case 'ID_CONFLICT':
      // Not retryable as is: the producer reused an id for a different event.
      return new HttpError(409, code, err.message, { details });
    case 'KAFKA_NOT_AUTHORIZED':
    case 'REGISTRY_UNAUTHORIZED':
      // Nothing was written, and nothing will be until an operator fixes a setting or an ACL.
      return new HttpError(503, code, err.message, { retryAfterS });
    case 'KAFKA_UNAVAILABLE':
    case 'ACK_TIMEOUT':
    case 'REGISTRY_UNAVAILABLE':
    case 'QUEUE_FULL':
    case 'CLOSED':
      // The event may or may not be stored: retrying with the same id is safe.
      return new HttpError(503, code, `${err.message}; retry with the same event id`, { retryAfterS });
    default:
      return new HttpError(500, code, err.message);
  }
}
