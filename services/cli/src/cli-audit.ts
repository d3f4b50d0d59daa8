import type { AuditRecord } from '@hookstream/contracts';
import { type AuditContext, AuditTrail } from '@hookstream/subscribers';
import { toolKafka } from './kafka-client.ts';
import { toolActor } from './tool-env.ts';

/** The CLI's audit trail: the tools' Kafka connection, the OS user as the actor. */
export function cliAudit(): AuditContext {
  return { trail: new AuditTrail(toolKafka('hookstream-audit')), actor: toolActor() };
}

/**
 * Writes a change's audit records and hands back the failure instead of throwing it, so the
 * command still prints what it did (a rotated secret, what apply wrote) before it exits 1 with
 * AUDIT_NOT_WRITTEN through `rethrow`.
 */
export async function writeAudit(records: readonly AuditRecord[]): Promise<unknown> {
  try {
    await cliAudit().trail.write(records);
    return null;
  } catch (err) {
    return err;
  }
}

/** Throws what writeAudit handed back, once the command has printed its outcome. */
export function rethrow(failure: unknown): void {
  if (failure !== null) throw failure;
}
