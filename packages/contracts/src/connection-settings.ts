import { z } from 'zod';
import { HookstreamError } from './hookstream-error.ts';

const port = z.coerce.number().int().min(1).max(65535);
const hostPort = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/;

/**
 * Where every component finds Kafka, the schema registry and (optionally) Redis: one schema, so
 * the ingress, the pushers and the tools read the same variables with the same defaults (the
 * local stack's ports on 127.0.0.1). The connection issue (TLS, SASL) extends it here.
 */
export const ConnectionEnv = z.object({
  /** Comma-separated host:port; default 127.0.0.1:$KAFKA_PORT. */
  KAFKA_BROKERS: z
    .string()
    .transform((s) => s.split(',').map((b) => b.trim()))
    .pipe(z.array(z.string().regex(hostPort, 'host:port')).min(1))
    .optional(),
  KAFKA_PORT: port.default(9092),
  /** Default http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7. */
  REGISTRY_URL: z.url({ protocol: /^https?$/ }).optional(),
  REGISTRY_PORT: port.default(8081),
  /** redis:// or rediss:// URL the destination limits are shared through; unset: per process. */
  HOOKSTREAM_LIMITER_REDIS: z.url({ protocol: /^rediss?$/ }).optional(),
});
export type ConnectionEnv = z.infer<typeof ConnectionEnv>;

export interface ConnectionSettings {
  readonly brokers: string[];
  readonly registryUrl: string;
  readonly limiterRedisUrl: string | undefined;
}

/** Settings from already-parsed variables (a service whose env schema extends ConnectionEnv). */
export function connectionSettingsOf(e: ConnectionEnv): ConnectionSettings {
  return {
    brokers: e.KAFKA_BROKERS ?? [`127.0.0.1:${e.KAFKA_PORT}`],
    registryUrl: e.REGISTRY_URL ?? `http://127.0.0.1:${e.REGISTRY_PORT}/apis/ccompat/v7`,
    limiterRedisUrl: e.HOOKSTREAM_LIMITER_REDIS,
  };
}

/** Parses the connection variables once; a bad one fails naming it. */
export function loadConnectionSettings(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const parsed = ConnectionEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HookstreamError(
      'BAD_CONFIG',
      `${issue?.path.join('.') ?? 'connection settings'}: ${issue?.message ?? 'invalid'}`,
      false,
    );
  }
  return connectionSettingsOf(parsed.data);
}
