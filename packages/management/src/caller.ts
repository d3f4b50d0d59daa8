import type { AuditActor } from '@hookstream/contracts';
import type { Actor, AuditContext } from '@hookstream/subscribers';

/**
 * Who asks: the scope (the operator sees and may do everything; a tenant only its own
 * subscribers) and an id for the audit trail and the replay log: a token's short digest, never
 * the token.
 */
export interface Caller {
  readonly scope: Actor;
  readonly id: string;
  /** Who the audit trail names when not a token (the CLI: the OS user). */
  readonly actor?: AuditActor;
}

/** The audit trail's actor for a caller: its own, else its token id, with its tenant when bound to one. */
export function auditActorOf(caller: Caller): AuditActor {
  if (caller.actor !== undefined) return caller.actor;
  return caller.scope.kind === 'tenant'
    ? { kind: 'token', tokenId: caller.id, tenant: caller.scope.tenant }
    : { kind: 'token', tokenId: caller.id };
}

/** Where a caller's changes are recorded. */
export function auditContextOf(trail: AuditContext['trail'], caller: Caller): AuditContext {
  return { trail, actor: auditActorOf(caller) };
}

/** The tenant a caller is bound to; undefined for the operator. */
export function tenantOf(caller: Caller): string | undefined {
  return caller.scope.kind === 'tenant' ? caller.scope.tenant : undefined;
}
