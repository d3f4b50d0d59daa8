import type { EventSchema, RegistrySettings } from '@hookstream/contracts';
import { loadEventCatalog } from '@hookstream/contracts';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { type AvroWriter, avroWriters } from './avro-wire.ts';
import { RegistryHttp } from './registry-http.ts';
import { registerSchemas } from './schema-ids.ts';

/** The catalog's schemas as registered, and what encodes events of them: a producer's and an encoder's. */
export interface EventSchemas {
  readonly catalog: ReadonlyMap<string, EventSchema>;
  readonly registry: SchemaRegistry;
  readonly registryHttp: RegistryHttp;
  readonly schemaIds: Map<string, number>;
  /** Schema id -> the registry client's own Avro type for it, fetched once at start. */
  readonly writers: Map<number, AvroWriter>;
}

/**
 * Registers the catalog's schemas (refused if incompatible; again is harmless) and fetches their
 * writers. A failure closes the registry's connections before it is thrown.
 */
export async function openEventSchemas(options: {
  readonly registry: RegistrySettings;
  readonly catalog?: ReadonlyMap<string, EventSchema> | undefined;
  readonly subjectPrefix?: string | undefined;
}): Promise<EventSchemas> {
  const catalog = options.catalog ?? loadEventCatalog();
  const registryHttp = new RegistryHttp(options.registry);
  const registry = new SchemaRegistry({
    host: registryHttp.url,
    retry: { retries: 1 },
    agent: registryHttp.agent,
    ...(registryHttp.auth === null ? {} : { auth: registryHttp.auth }),
  });
  try {
    const schemaIds = await registerSchemas(registry, catalog, options.subjectPrefix);
    const writers = await avroWriters(registry, schemaIds);
    return { catalog, registry, registryHttp, schemaIds, writers };
  } catch (err) {
    registryHttp.close();
    throw err;
  }
}
