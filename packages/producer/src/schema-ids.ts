import type { EventSchema } from '@hookstream/contracts';
import { type SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { PublishError } from './errors.ts';

/**
 * Registers every event schema under its subject (idempotent: an unchanged schema gets its
 * existing id) and returns type -> schema id. The registry enforces compatibility: a schema
 * that breaks BACKWARD compatibility with the registered versions is refused (SCHEMA_REJECTED).
 */
export async function registerSchemas(
  registry: SchemaRegistry,
  catalog: ReadonlyMap<string, EventSchema>,
  subjectPrefix = '',
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const schema of catalog.values()) {
    const subject = `${subjectPrefix}${schema.subject}`;
    try {
      const { id } = await registry.register(
        { type: SchemaType.AVRO, schema: JSON.stringify(schema.avro) },
        { subject },
      );
      ids.set(schema.type, id);
    } catch (err) {
      throw registryError(err, subject);
    }
  }
  return ids;
}

function registryError(err: unknown, subject: string): PublishError {
  const status = (err as { status?: unknown }).status;
  const message = err instanceof Error ? err.message : String(err);
  if (status === 401 || status === 403) {
    return new PublishError(
      'REGISTRY_UNAUTHORIZED',
      `REGISTRY_USERNAME / REGISTRY_PASSWORD: the registry answered ${status} registering ${subject}: check the credentials and their rights`,
      { cause: err },
    );
  }
  // 409: incompatible with an earlier version; 422: not a valid schema.
  if (status === 409 || status === 422 || /compatib/i.test(message)) {
    return new PublishError('SCHEMA_REJECTED', `registry refused the schema for ${subject}: ${message}`, {
      cause: err,
    });
  }
  return new PublishError('REGISTRY_UNAVAILABLE', `registry unavailable registering ${subject}: ${message}`, {
    cause: err,
  });
}
