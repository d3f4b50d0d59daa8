import type { RegistryHttp, RegistryResponse } from '@hookstream/producer';
/**
 * One schema id as the registry answers it. `missing` (404) will not clear, so a record written
 * with that id is poison; `unavailable` (5xx, timeout, refused connection) may, so it waits.
 */
export type SchemaLookup =
  | { readonly kind: 'found'; readonly schemaType: string; readonly schema: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unavailable'; readonly detail: string };

export interface SchemaSource {
  lookup(id: number): Promise<SchemaLookup>;
}

/** A registry answer larger than this is not a schema of ours; it is read no further. */
const MAX_SCHEMA_BYTES = 1_000_000;

/**
 * The registry's `GET /schemas/ids/{id}` (Confluent API, Apicurio's ccompat), with a timeout of
 * its own so a hung registry is an outage that waits and is counted, never a silent stall.
 */
export class RegistrySchemaSource implements SchemaSource {
  readonly #registry: RegistryHttp;
  readonly #timeoutMs: number;

  constructor(registry: RegistryHttp, timeoutMs = 5000) {
    this.#registry = registry;
    this.#timeoutMs = timeoutMs;
  }

  async lookup(id: number): Promise<SchemaLookup> {
    let response: RegistryResponse;
    try {
      response = await this.#registry.get(`/schemas/ids/${id}`, {
        timeoutMs: this.#timeoutMs,
        maxBytes: MAX_SCHEMA_BYTES,
      });
    } catch (err) {
      return {
        kind: 'unavailable',
        detail: `schema registry: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    if (response.status === 404) return { kind: 'missing' };
    if (response.status === 401 || response.status === 403) {
      return {
        kind: 'unavailable',
        detail: `schema registry answered ${response.status}: check REGISTRY_USERNAME / REGISTRY_PASSWORD`,
      };
    }
    if (response.status < 200 || response.status >= 300) {
      return { kind: 'unavailable', detail: `schema registry answered ${response.status}` };
    }
    if (response.oversized) return { kind: 'found', schemaType: 'OVERSIZED', schema: '' };
    try {
      const body = JSON.parse(response.body) as { schema?: unknown; schemaType?: unknown };
      return {
        kind: 'found',
        // The Confluent API leaves schemaType out for Avro.
        schemaType: typeof body.schemaType === 'string' ? body.schemaType : 'AVRO',
        schema: typeof body.schema === 'string' ? body.schema : '',
      };
    } catch (err) {
      return { kind: 'unavailable', detail: `schema registry: unreadable answer (${String(err)})` };
    }
  }
}
