import { CE_HEADER } from './headers.ts';
import { NAMED_ONLY_NOTICE_TYPES } from './notices.ts';

type Headers = Readonly<Record<string, string>>;

/** A record's CloudEvents type (`ce_type`), or undefined. */
export function eventTypeOf(headers: Headers): string | undefined {
  return headers[CE_HEADER.type];
}

/** A record's tenant (`ce_tenant`), or undefined. */
export function eventTenantOf(headers: Headers): string | undefined {
  return headers[CE_HEADER.tenant];
}

/** What a subscriber's definition says it takes. */
export interface SelectionSource {
  /** `*` (or nothing): every type. */
  readonly eventTypes?: readonly string[] | undefined;
  readonly tenant?: string | null | undefined;
}

/**
 * Which records of the events topic a subscriber takes, by their headers alone: its event types
 * and its tenant. The one rule the events tap's index, a lane's own fetch and the delivery's
 * admission apply. A tenant's subscriber takes only that tenant's records; one without a tenant
 * takes every record, with a tenant or without. A record without a type is taken, so that its
 * delivery dead-letters it as poison rather than pass it over unseen.
 */
export class EventSelection {
  /** null: every type (but the operational notices, which only naming takes). */
  readonly types: ReadonlySet<string> | null;
  /** null: every tenant. */
  readonly tenant: string | null;
  /** The types named, beside `*`: what decides the operational notices. */
  readonly #named: ReadonlySet<string>;

  constructor(
    types: ReadonlySet<string> | null,
    tenant: string | null,
    named: ReadonlySet<string> = types ?? new Set(),
  ) {
    this.types = types;
    this.tenant = tenant;
    this.#named = named;
  }

  static of({ eventTypes, tenant }: SelectionSource): EventSelection {
    const named = new Set(eventTypes ?? []);
    const types = eventTypes === undefined || eventTypes.includes('*') ? null : named;
    return new EventSelection(types, tenant ?? null, named);
  }

  takesType(type: string | undefined): boolean {
    if (type === undefined) return true;
    // A list decides alone (it names what it takes); only `*` must leave out the named-only types.
    if (this.types !== null) return this.types.has(type);
    return !NAMED_ONLY_NOTICE_TYPES.has(type) || this.#named.has(type);
  }

  takesTenant(tenant: string | undefined): boolean {
    return this.tenant === null || this.tenant === tenant;
  }

  takes(headers: Headers): boolean {
    return this.takesTenant(eventTenantOf(headers)) && this.takesType(eventTypeOf(headers));
  }
}
