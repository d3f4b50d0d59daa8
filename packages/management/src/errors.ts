import { HookstreamError } from '@hookstream/contracts';

/** The codes a management operation fails with; each has one HTTP status (the API's answer). */
export const MANAGEMENT_ERROR_STATUS = {
  invalid_request: 400,
  invalid_cursor: 400,
  forbidden_tenant: 403,
  forbidden: 403,
  not_found: 404,
  name_unavailable: 409,
  tenant_changed: 409,
  not_managed: 409,
  old_seal: 409,
  fleet_too_old: 409,
  group_in_use: 409,
  replay_running: 409,
  quota_exceeded: 409,
  not_pull: 409,
  subscriber_not_active: 409,
  lease_unknown: 409,
  lease_expired: 409,
  cursor_unknown: 409,
  cursor_past: 409,
  event_not_leased: 409,
  no_retry_tier: 409,
  precondition_failed: 412,
  invalid_definition: 422,
  invalid_body: 422,
  forbidden_field: 422,
  type_not_taken: 422,
  audit_not_written: 500,
  internal: 500,
  secrets_key_unavailable: 503,
  payload_unavailable: 503,
  kafka_unavailable: 503,
  pull_unavailable: 503,
  messages_unavailable: 503,
  examples_unavailable: 503,
} as const;

export type ManagementErrorCode = keyof typeof MANAGEMENT_ERROR_STATUS;

/** One thing wrong with a request (a field and why), as the API lists them in `details`. */
export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

/**
 * A management operation could not do what was asked: a stable lower-case code (the API's error
 * code), its HTTP status, whether the same request again could succeed, and the fields at fault.
 */
export class ManagementError extends HookstreamError<ManagementErrorCode> {
  readonly status: number;
  readonly details: readonly ErrorDetail[];

  constructor(
    code: ManagementErrorCode,
    message: string,
    options: { canRetry?: boolean; details?: readonly ErrorDetail[]; cause?: unknown } = {},
  ) {
    const status = MANAGEMENT_ERROR_STATUS[code];
    super(code, message, options.canRetry ?? status === 503, { cause: options.cause });
    this.status = status;
    this.details = options.details ?? [];
  }
}
