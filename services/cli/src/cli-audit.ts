import { type AuditContext, AuditTrail } from '@hookstream/subscribers';
import { toolKafka } from './kafka-client.ts';
import { toolActor } from './tool-env.ts';

/** The CLI's audit trail: the tools' Kafka connection, the OS user as the actor. */
export function cliAudit(): AuditContext {
  return { trail: new AuditTrail(toolKafka('hookstream-audit')), actor: toolActor() };
}
