import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** True for a W3C traceparent (version 00) whose trace and parent ids are not all zeros. */
export function isTraceparent(value: string): boolean {
  const match = TRACEPARENT.exec(value);
  return match !== null && !/^0+$/.test(match[1] ?? '') && !/^0+$/.test(match[2] ?? '');
}

/**
 * A new sampled W3C traceparent, used when the caller brings no trace context, so every event
 * still starts a trace that deliveries join. (OpenTelemetry wiring comes with the tracing issue.)
 */
export function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}
