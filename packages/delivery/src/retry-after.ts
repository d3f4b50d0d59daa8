/** Longest Retry-After honoured; beyond it a broken header would stall a destination for days. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * Parses a Retry-After value (RFC 9110: delay-seconds or an HTTP date) into milliseconds from
 * now, capped at MAX_RETRY_AFTER_MS. Null when absent or unparseable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (text === '') return null;
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // HTTP dates always name the weekday and GMT; this keeps Date.parse from accepting odd formats.
  if (!/GMT$/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(at - nowMs, 0), MAX_RETRY_AFTER_MS);
}

/**
 * A pause end (ms since epoch) from elsewhere, such as another instance's message on Redis,
 * bounded like a Retry-After: never beyond MAX_RETRY_AFTER_MS from now; not a number: no pause.
 */
export function boundedPauseUntil(untilMs: number, nowMs: number): number {
  if (!Number.isFinite(untilMs)) return nowMs;
  return Math.min(untilMs, nowMs + MAX_RETRY_AFTER_MS);
}
