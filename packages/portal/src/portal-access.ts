import type { PortalLink } from '@hookstream/contracts';
import { type Caller, ManagementError } from '@hookstream/management';

/**
 * What one link may see and do. Its caller is its tenant's (the management operations apply
 * every tenant rule to it, as to a tenant token) and names the link and the customer's user for
 * the audit trail. On top of the tenant, the link's own limits: its scope, endpoints and types.
 * Whatever lies outside them is `not_found`, as another tenant's is.
 */
export class PortalAccess {
  readonly link: PortalLink;
  readonly caller: Caller;

  constructor(link: PortalLink) {
    this.link = link;
    this.caller = {
      scope: { kind: 'tenant', tenant: link.tenant },
      id: link.id,
      actor: {
        kind: 'portal',
        linkId: link.id,
        tenant: link.tenant,
        ...(link.user === undefined ? {} : { user: link.user }),
      },
    };
  }

  get canManage(): boolean {
    return this.link.scope === 'manage';
  }

  /** New endpoints: a manage link not limited to named ones. */
  get canCreate(): boolean {
    return this.canManage && this.link.subscribers === undefined;
  }

  seesSubscriber(name: string): boolean {
    return this.link.subscribers === undefined || this.link.subscribers.includes(name);
  }

  seesType(type: string): boolean {
    return this.link.eventTypes === undefined || this.link.eventTypes.includes(type);
  }

  /** The endpoints a message read is limited to; undefined: every one of the tenant's. */
  get subscriberLimit(): readonly string[] | undefined {
    return this.link.subscribers;
  }

  get typeLimit(): readonly string[] | undefined {
    return this.link.eventTypes;
  }

  requireSubscriber(name: string): void {
    if (!this.seesSubscriber(name)) throw new ManagementError('not_found', `no subscriber "${name}"`);
  }

  requireManage(): void {
    if (!this.canManage) throw new ManagementError('forbidden', 'this portal link may only read');
  }

  requireCreate(): void {
    this.requireManage();
    if (!this.canCreate)
      throw new ManagementError(
        'forbidden',
        'this portal link is limited to its endpoints: it cannot add one',
      );
  }

  /** An endpoint's types within the link's: `*` and any other type are refused when it is limited. */
  requireTypes(eventTypes: readonly string[]): void {
    const outside = eventTypes.filter((t) => !this.seesType(t));
    if (outside.length > 0)
      throw new ManagementError('invalid_definition', `this link's endpoints may take only its event types`, {
        details: outside.map((t) => ({
          path: 'eventTypes',
          message: `"${t}" is not one of this link's types`,
        })),
      });
  }
}
