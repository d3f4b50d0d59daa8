import {
  type ConnectionSettings,
  DEFAULT_EVENTS_TOPIC,
  EventsTopicName,
  HookstreamError,
  loadConnectionSettings,
  redactUrlText,
  StartPosition,
} from '@hookstream/contracts';
import { DeliveryError, type EgressProxy, parseEgressProxy } from '@hookstream/delivery';
import { DEFAULT_MEMORY_BUDGET_MB } from '@hookstream/pusher-core';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * Every `hookstream push` setting: its flag, the variable it falls back to, and its schema.
 * Flags override variables; both are parsed here, once, and a bad value names the flag and the
 * variable. Bounds are the product's, not the parser's: a fetch wait of a minute would stall
 * every tier that comes due.
 */
const SETTINGS = {
  config: { schema: z.string().min(1).optional(), expected: 'a definition file' },
  all: { schema: z.boolean().default(false), expected: 'a switch' },
  match: { schema: z.string().min(1).max(1000).optional(), expected: 'comma-separated globs' },
  instance: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,200}$/)
      .optional(),
    expected: "1 to 200 letters, digits, '.', '_', ':' or '-'",
  },
  'secrets-key-file': { schema: z.string().min(1).optional(), expected: 'a file' },
  'tier-partitions': { schema: int(1, 1000).optional(), expected: '1 to 1000' },
  'fetch-wait': { schema: int(10, 10_000).optional(), expected: '10 to 10000 ms' },
  topic: {
    env: 'HOOKSTREAM_EVENTS_TOPIC',
    schema: EventsTopicName.default(DEFAULT_EVENTS_TOPIC),
    expected: 'a Kafka topic name',
  },
  redis: {
    env: 'HOOKSTREAM_LIMITER_REDIS',
    schema: z.url({ protocol: /^rediss?$/ }).optional(),
    expected: 'a redis:// or rediss:// URL',
  },
  'metrics-port': { env: 'HOOKSTREAM_METRICS_PORT', schema: port.optional(), expected: 'a port number' },
  'health-port': { env: 'HOOKSTREAM_PUSHER_HEALTH_PORT', schema: port.optional(), expected: 'a port number' },
  'health-host': {
    env: 'HOOKSTREAM_PUSHER_HEALTH_HOST',
    schema: z.string().min(1).default('127.0.0.1'),
    expected: 'an address',
  },
  'log-level': {
    env: 'LOG_LEVEL',
    schema: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    expected: 'debug, info, warn or error',
  },
  'resume-from': { schema: StartPosition.optional(), expected: 'earliest, latest or an RFC 3339 time' },
  'session-timeout': {
    env: 'HOOKSTREAM_SESSION_TIMEOUT_MS',
    schema: int(6000, 300_000).optional(),
    expected: 'milliseconds from 6000 to 300000',
  },
  'memory-budget': {
    env: 'HOOKSTREAM_MEMORY_BUDGET_MB',
    schema: int(16, 16_384).default(DEFAULT_MEMORY_BUDGET_MB),
    expected: 'MiB from 16 to 16384',
  },
} as const satisfies Record<string, { env?: string; schema: z.ZodType; expected: string }>;

type SettingName = keyof typeof SETTINGS;
const PushOptions = z.object(
  Object.fromEntries(Object.entries(SETTINGS).map(([k, v]) => [k, v.schema])) as {
    [K in SettingName]: (typeof SETTINGS)[K]['schema'];
  },
);
type PushOptions = z.infer<typeof PushOptions>;

/** What the flags ask for, as `node:util` parseArgs leaves them. */
export type PushFlags = Partial<Record<SettingName, string | boolean | undefined>>;

export type PushMode =
  | { readonly kind: 'one'; readonly configFile: string; readonly resumeFrom: StartPosition | undefined }
  | {
      readonly kind: 'fleet';
      readonly match: string | undefined;
      readonly instance: string | undefined;
      readonly secretsKeyFile: string | undefined;
      readonly tierPartitions: number;
    };

/** `hookstream push`'s whole configuration, flags and environment together. */
export interface PushConfig {
  readonly mode: PushMode;
  readonly connection: ConnectionSettings;
  readonly topic: string;
  readonly limiterRedisUrl: string | undefined;
  readonly fetchWaitMs: number;
  readonly metricsPort: number | undefined;
  readonly health: { readonly port: number; readonly host: string } | null;
  readonly logLevel: PushOptions['log-level'];
  readonly sessionTimeoutMs: number | undefined;
  /** Bytes of records the process keeps while they wait (the tap, lane queues, tier lanes). */
  readonly memoryBudgetBytes: number;
  /** HOOKSTREAM_EGRESS_PROXY (and NO_PROXY); null: deliveries connect directly. */
  readonly egressProxy: EgressProxy | null;
}

/** A flag or variable `hookstream push` cannot run with; the message names it. Exit code 2. */
export class PushConfigError extends HookstreamError<'BAD_CONFIG'> {
  constructor(message: string) {
    super('BAD_CONFIG', message, false);
  }
}

/**
 * `--flag (or VARIABLE): expected …`, the way every bad setting is reported. The value shown has
 * any URL's user info and query values redacted (redactUrlText): a URL setting (--redis) carries
 * its password, and a URL given to another setting by mistake may too.
 */
function refusal(setting: string, got: unknown): string {
  const known = (SETTINGS as Record<string, { env?: string; expected: string }>)[setting];
  const name = known?.env === undefined ? `--${setting}` : `--${setting} (or ${known.env})`;
  return `${name}: expected ${known?.expected ?? 'a valid value'}, got '${redactUrlText(String(got))}'`;
}

/** Parses the flags over the environment; throws PushConfigError naming the first bad one. */
export function loadPushConfig(flags: PushFlags, env: NodeJS.ProcessEnv): PushConfig {
  const input: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [SettingName, { env?: string }][]) {
    const value = flags[name] ?? (setting.env === undefined ? undefined : env[setting.env] || undefined);
    if (value !== undefined) input[name] = value;
  }
  const parsed = PushOptions.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const setting = String(issue?.path[0] ?? 'options');
    throw new PushConfigError(refusal(setting, input[setting]));
  }
  const o = parsed.data;
  if ((o.config === undefined) === !o.all)
    throw new PushConfigError('give exactly one of --config <file> and --all');
  for (const fleetOnly of ['match', 'instance', 'tier-partitions'] as const) {
    if (o[fleetOnly] !== undefined && !o.all) throw new PushConfigError(`--${fleetOnly} needs --all`);
  }
  if (o['resume-from'] !== undefined && o.all) {
    throw new PushConfigError(
      '--resume-from takes one subscriber: run it with --config (a fleet reports such a subscriber and leaves it stopped)',
    );
  }
  let connection: ConnectionSettings;
  try {
    connection = loadConnectionSettings(env);
  } catch (err) {
    throw new PushConfigError((err as Error).message);
  }
  return {
    mode:
      o.config !== undefined
        ? { kind: 'one', configFile: o.config, resumeFrom: o['resume-from'] }
        : {
            kind: 'fleet',
            match: o.match,
            instance: o.instance,
            secretsKeyFile: o['secrets-key-file'],
            tierPartitions: o['tier-partitions'] ?? 1,
          },
    connection,
    topic: o.topic,
    limiterRedisUrl: o.redis,
    // An idle group costs one fetch per wait: a fleet of many groups waits longer.
    fetchWaitMs: o['fetch-wait'] ?? (o.all ? 1000 : 100),
    metricsPort: o['metrics-port'],
    health: o['health-port'] === undefined ? null : { port: o['health-port'], host: o['health-host'] },
    logLevel: o['log-level'],
    sessionTimeoutMs: o['session-timeout'],
    memoryBudgetBytes: o['memory-budget'] * 1024 * 1024,
    egressProxy: egressProxyOf(env),
  };
}

/** The egress proxy from the environment; a bad one is a PushConfigError naming the variable. */
function egressProxyOf(env: NodeJS.ProcessEnv): EgressProxy | null {
  try {
    return parseEgressProxy({
      HOOKSTREAM_EGRESS_PROXY: env.HOOKSTREAM_EGRESS_PROXY,
      NO_PROXY: env.NO_PROXY ?? env.no_proxy,
    });
  } catch (err) {
    if (err instanceof DeliveryError) throw new PushConfigError(err.message);
    throw err;
  }
}
