import { z } from 'zod';
import { HookstreamError } from './hookstream-error.ts';
import { redactUrl, redactUrlText } from './redact-url.ts';
import { type FileReader, readSettingFile, tlsFiles } from './tls-files.ts';

const port = z.coerce.number().int().min(1).max(65535);
const hostPort = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/;
const flag = z.enum(['1', '0', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const path = z.string().min(1);
const secret = z.string().min(1).max(4096);

export const SaslMechanism = z.enum(['plain', 'scram-sha-256', 'scram-sha-512']);
export type SaslMechanism = z.infer<typeof SaslMechanism>;

/**
 * Where every component finds Kafka, the schema registry and (optionally) Redis, and how it
 * proves who it is: one schema, so the ingress, the pushers and the tools read the same
 * variables with the same defaults (the local stack's ports on 127.0.0.1).
 */
export const ConnectionEnv = z.object({
  /** Comma-separated host:port; default 127.0.0.1:$KAFKA_PORT. */
  KAFKA_BROKERS: z
    .string()
    .transform((s) => s.split(',').map((b) => b.trim()))
    .pipe(z.array(z.string().regex(hostPort, 'host:port')).min(1))
    .optional(),
  KAFKA_PORT: port.default(9092),
  /** TLS to the brokers; on by itself when a KAFKA_TLS_* file is set. */
  KAFKA_TLS: flag.optional(),
  /** PEM CA bundle the brokers' certificates are checked against (default: Node's CAs). */
  KAFKA_TLS_CA_FILE: path.optional(),
  /** PEM client certificate and key, for brokers that require mTLS. */
  KAFKA_TLS_CERT_FILE: path.optional(),
  KAFKA_TLS_KEY_FILE: path.optional(),
  /** false keeps the chain check but accepts a certificate issued for another host name. */
  KAFKA_TLS_CHECK_SERVER_NAME: flag.default(true),
  KAFKA_SASL_MECHANISM: SaslMechanism.optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).max(256).optional(),
  KAFKA_SASL_PASSWORD: secret.optional(),
  /** A file holding the password (a mounted Secret); wins over KAFKA_SASL_PASSWORD. */
  KAFKA_SASL_PASSWORD_FILE: path.optional(),
  /** Default http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7; may carry user:password@. */
  REGISTRY_URL: z.url({ protocol: /^https?$/ }).optional(),
  REGISTRY_PORT: port.default(8081),
  REGISTRY_USERNAME: z.string().min(1).max(256).optional(),
  REGISTRY_PASSWORD: secret.optional(),
  REGISTRY_PASSWORD_FILE: path.optional(),
  /** PEM CA bundle for an https registry with a private CA. */
  REGISTRY_CA_FILE: path.optional(),
  /** redis:// or rediss:// URL the destination limits are shared through; unset: per process. */
  HOOKSTREAM_LIMITER_REDIS: z.url({ protocol: /^rediss?$/ }).optional(),
});
export type ConnectionEnv = z.infer<typeof ConnectionEnv>;

/** TLS to Kafka, with the files already read (PEM text). */
export interface KafkaTls {
  readonly ca: string | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
  readonly checkServerName: boolean;
}

export interface KafkaSasl {
  readonly mechanism: SaslMechanism;
  readonly username: string;
  readonly password: string;
}

/** Everything a Kafka client needs besides its client id. */
export interface KafkaSettings {
  readonly brokers: readonly string[];
  readonly tls: KafkaTls | null;
  readonly sasl: KafkaSasl | null;
}

export interface RegistrySettings {
  /** Without user-info: credentials travel in `auth`, never in a URL that may be logged. */
  readonly url: string;
  readonly auth: { readonly username: string; readonly password: string } | null;
  /** PEM CA bundle for https, when the registry's CA is private. */
  readonly ca: string | undefined;
}

export interface ConnectionSettings {
  readonly kafka: KafkaSettings;
  readonly registry: RegistrySettings;
  readonly limiterRedisUrl: string | undefined;
}

function badConfig(message: string): HookstreamError<'BAD_CONFIG'> {
  return new HookstreamError('BAD_CONFIG', message, false);
}

function kafkaSasl(e: ConnectionEnv, read: FileReader | undefined): KafkaSasl | null {
  const password =
    e.KAFKA_SASL_PASSWORD_FILE !== undefined
      ? readSettingFile('KAFKA_SASL_PASSWORD_FILE', e.KAFKA_SASL_PASSWORD_FILE, read).trim()
      : e.KAFKA_SASL_PASSWORD;
  if (e.KAFKA_SASL_MECHANISM === undefined) {
    if (e.KAFKA_SASL_USERNAME !== undefined || password !== undefined) {
      throw badConfig(
        'KAFKA_SASL_MECHANISM: required with KAFKA_SASL_USERNAME / _PASSWORD (plain, scram-sha-256, scram-sha-512)',
      );
    }
    return null;
  }
  if (e.KAFKA_SASL_USERNAME === undefined)
    throw badConfig('KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM');
  if (password === undefined || password === '') {
    throw badConfig('KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM (or KAFKA_SASL_PASSWORD_FILE)');
  }
  return { mechanism: e.KAFKA_SASL_MECHANISM, username: e.KAFKA_SASL_USERNAME, password };
}

function registrySettings(e: ConnectionEnv, read: FileReader | undefined): RegistrySettings {
  const url = new URL(e.REGISTRY_URL ?? `http://127.0.0.1:${e.REGISTRY_PORT}/apis/ccompat/v7`);
  const fromUrl =
    url.username === ''
      ? null
      : { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  url.username = '';
  url.password = '';
  const password =
    e.REGISTRY_PASSWORD_FILE !== undefined
      ? readSettingFile('REGISTRY_PASSWORD_FILE', e.REGISTRY_PASSWORD_FILE, read).trim()
      : e.REGISTRY_PASSWORD;
  const username = e.REGISTRY_USERNAME ?? fromUrl?.username;
  if (password !== undefined && username === undefined) {
    throw badConfig('REGISTRY_USERNAME: required with REGISTRY_PASSWORD (or user-info in REGISTRY_URL)');
  }
  const auth = username === undefined ? null : { username, password: password ?? fromUrl?.password ?? '' };
  const ca =
    e.REGISTRY_CA_FILE === undefined
      ? undefined
      : readSettingFile('REGISTRY_CA_FILE', e.REGISTRY_CA_FILE, read);
  if (ca !== undefined && url.protocol !== 'https:')
    throw badConfig('REGISTRY_CA_FILE: set, but REGISTRY_URL is not https');
  return { url: url.toString().replace(/\/+$/, ''), auth, ca };
}

/**
 * Settings from already-parsed variables (a service whose env schema extends ConnectionEnv).
 * Reads the TLS and password files once, here, so a missing file, an expired certificate or a
 * key that does not match fails at start naming the variable rather than at the first connect.
 */
export function connectionSettingsOf(
  e: ConnectionEnv,
  read?: FileReader,
  now = new Date(),
): ConnectionSettings {
  return {
    kafka: {
      brokers: e.KAFKA_BROKERS ?? [`127.0.0.1:${e.KAFKA_PORT}`],
      tls: tlsFiles(e, read, now),
      sasl: kafkaSasl(e, read),
    },
    registry: registrySettings(e, read),
    limiterRedisUrl: e.HOOKSTREAM_LIMITER_REDIS,
  };
}

/** Parses the connection variables once; a bad one fails naming it. */
export function loadConnectionSettings(
  env: NodeJS.ProcessEnv = process.env,
  read?: FileReader,
): ConnectionSettings {
  const parsed = ConnectionEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const got = shownUrl(env, issue?.path[0]);
    throw badConfig(
      `${issue?.path.join('.') ?? 'connection settings'}: ${issue?.message ?? 'invalid'}${got}`,
    );
  }
  return connectionSettingsOf(parsed.data, read);
}

/** The variables that hold a URL, and with it often a password. */
const URL_VARIABLES: ReadonlySet<PropertyKey> = new Set(['REGISTRY_URL', 'HOOKSTREAM_LIMITER_REDIS']);

/**
 * `, got '…'` for a refused URL variable, its user info and query values redacted (zod says only
 * "Invalid URL"); nothing for any other variable.
 */
function shownUrl(env: NodeJS.ProcessEnv, variable: PropertyKey | undefined): string {
  const value = typeof variable === 'string' && URL_VARIABLES.has(variable) ? env[variable] : undefined;
  return value === undefined ? '' : `, got '${redactUrlText(value)}'`;
}

/** What a log line or `stack status` may show of the settings: no password, no key. */
export function describeConnection(s: ConnectionSettings): Record<string, string> {
  return {
    kafka: s.kafka.brokers.join(','),
    kafkaSecurity: `${s.kafka.sasl ? 'SASL_' : ''}${s.kafka.tls ? 'SSL' : 'PLAINTEXT'}`,
    ...(s.kafka.sasl ? { kafkaUser: `${s.kafka.sasl.username} (${s.kafka.sasl.mechanism})` } : {}),
    registry: redactUrl(s.registry.url),
    ...(s.registry.auth ? { registryUser: s.registry.auth.username } : {}),
    ...(s.limiterRedisUrl ? { redis: redactUrl(s.limiterRedisUrl) } : {}),
  };
}

/** A connection without TLS or credentials, e.g. to the local stack: for benches and tests. */
export function plaintextConnection(brokers: readonly string[], registryUrl: string): ConnectionSettings {
  return {
    kafka: { brokers, tls: null, sasl: null },
    registry: { url: registryUrl.replace(/\/+$/, ''), auth: null, ca: undefined },
    limiterRedisUrl: undefined,
  };
}
