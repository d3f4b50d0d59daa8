/**
 * A fair lane's records in flight, counted by tenant: each tenant may have a window of its own
 * running, so the records of a tenant that arrives behind another's burst start at once instead
 * of waiting for the burst's records to end (they then wait their turn at the destination's
 * limiter, where the tenants take turns too).
 */
export class TenantWindows {
  readonly #perTenant: number;
  /** Offset → tenant of each record running. */
  readonly #running = new Map<number, string>();
  readonly #byTenant = new Map<string, number>();

  constructor(perTenant: number) {
    this.#perTenant = perTenant;
  }

  hasRoom(tenant: string): boolean {
    return (this.#byTenant.get(tenant) ?? 0) < this.#perTenant;
  }

  started(offset: number, tenant: string): void {
    this.#running.set(offset, tenant);
    this.#byTenant.set(tenant, (this.#byTenant.get(tenant) ?? 0) + 1);
  }

  ended(offset: number): void {
    const tenant = this.#running.get(offset);
    if (tenant === undefined) return;
    this.#running.delete(offset);
    const left = (this.#byTenant.get(tenant) ?? 1) - 1;
    if (left > 0) this.#byTenant.set(tenant, left);
    else this.#byTenant.delete(tenant);
  }
}
