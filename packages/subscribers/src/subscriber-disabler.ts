import type { SubscriberDefinition, SubscriberRecord } from '@hookstream/contracts';
import { CatalogError } from './catalog-error.ts';
import type { CatalogSnapshot } from './registry-records.ts';
import { disabledRecord, recordOfDefinition } from './state-changes.ts';
import { disabledNotice, type NoticePublisher, publishNotice } from './state-notices.ts';

/** Why and how hookstream disables one subscriber. */
export interface DisableRequest {
  readonly name: string;
  readonly cause: 'gone' | 'failing';
  /** For people: what the endpoint did (kept to 500 characters). */
  readonly reason: string;
  /** The status that decided it (410), null for sustained failure. */
  readonly status: number | null;
  readonly failingSinceMs: number | null;
  /**
   * A subscriber run from a definition file (`push --config`) may have no catalog record: this
   * definition is then written as its record, disabled, so `subscribers resume` can enable it.
   */
  readonly definition?: SubscriberDefinition;
}

/** The catalog as the disabler uses it (SubscriberCatalog in production). */
export interface DisablerCatalog {
  read(): Promise<CatalogSnapshot>;
  write(records: readonly SubscriberRecord[]): Promise<void>;
}

export interface SubscriberDisablerOptions {
  readonly catalog: DisablerCatalog;
  /** Asked at the first disable only: the producer registers schemas and connects then. */
  readonly publisher: () => Promise<NoticePublisher>;
  readonly eventsTopic: string;
  readonly now?: () => Date;
}

/** What a disable did: `written` false when the record was not active (already disabled, paused). */
export interface DisableResult {
  readonly written: boolean;
  readonly record: SubscriberRecord;
}

/**
 * Disables a subscriber the way an operator's pause does, through its registry record (state
 * `disabled`, by hookstream, with the reason), so every instance's fleet stops its consumer and
 * the ledger stays; then publishes `subscriber.disabled` onto the events topic. The record
 * comes first: a notice without the state change would announce something untrue.
 */
export class SubscriberDisabler {
  readonly #options: SubscriberDisablerOptions;

  constructor(options: SubscriberDisablerOptions) {
    this.#options = options;
  }

  async disable(request: DisableRequest): Promise<DisableResult> {
    const now = this.#options.now?.() ?? new Date();
    const snapshot = await this.#options.catalog.read();
    const current =
      snapshot.subscribers.get(request.name) ??
      (request.definition === undefined ? undefined : recordOfDefinition(request.definition, now));
    if (current === undefined)
      throw new CatalogError(
        'UNKNOWN_SUBSCRIBER',
        `no subscriber "${request.name}" in the catalog to disable`,
        false,
      );
    // Another instance got there first, or an operator paused it meanwhile: nothing to announce.
    if (current.state.kind !== 'active') return { written: false, record: current };
    const record = disabledRecord(current, { reason: request.reason, cause: request.cause, now });
    await this.#options.catalog.write([record]);
    const publisher = await this.#options.publisher();
    await publishNotice(
      publisher,
      disabledNotice(record, {
        eventsTopic: this.#options.eventsTopic,
        status: request.status,
        failingSinceMs: request.failingSinceMs,
      }),
    );
    return { written: true, record };
  }
}
