import { randomUUID } from 'node:crypto';

/** A topic, group or subject name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
