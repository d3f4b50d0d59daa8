import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { StackError } from './errors.ts';

const port = z.coerce.number().int().min(1).max(65535);

/** The repository root: packages/stack/src -> ../../.. */
const repoRoot = resolve(import.meta.dirname, '../../..');

export const StackEnv = z.object({
  /** Machine-wide by default, so every checkout finds the one running stack (see stateDir). */
  HOOKSTREAM_STATE_DIR: z.string().min(1).optional(),
  HOOKSTREAM_CACHE_DIR: z.string().min(1).optional(),
  XDG_STATE_HOME: z.string().min(1).optional(),
  XDG_CACHE_HOME: z.string().min(1).optional(),
  HOME: z.string().min(1).optional(),
  KAFKA_PORT: port.default(9092),
  KAFKA_CONTROLLER_PORT: port.default(9093),
  REGISTRY_PORT: port.default(8081),
  JAEGER_OTLP_GRPC_PORT: port.default(4317),
  JAEGER_OTLP_HTTP_PORT: port.default(4318),
  JAEGER_QUERY_PORT: port.default(16686),
  JAEGER_QUERY_GRPC_PORT: port.default(16685),
  /** auto: run Jaeger when Go is available, warn and skip otherwise. */
  HOOKSTREAM_JAEGER: z.enum(['auto', 'on', 'off']).default('auto'),
  REDIS_PORT: port.default(6379),
  /** auto: run Redis where redis-server is installed; on: install it if needed (root, apt-get). */
  HOOKSTREAM_REDIS: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Seconds a component may take from spawn to ready before `stack up` gives up. */
  HOOKSTREAM_READY_TIMEOUT_S: z.coerce.number().int().positive().max(3600).default(180),
  /** Minutes a background build (Jaeger) may take before a waiter gives up on it. */
  HOOKSTREAM_BUILD_TIMEOUT_MIN: z.coerce.number().int().positive().max(120).default(20),
  /**
   * refuse: a running component of another version than this checkout pins stops `stack up`;
   * use: it is used anyway, with a warning.
   */
  HOOKSTREAM_STACK_MISMATCH: z.enum(['refuse', 'use']).default('refuse'),
});
export type StackEnv = z.infer<typeof StackEnv>;

/** Pinned versions: changing one re-resolves into a fresh cache folder. */
export const VERSIONS = {
  kafka: '4.1.1',
  log4j: '2.25.3',
  slf4j: '2.0.17',
  apicurio: '3.0.9',
  jaeger: 'v1.76.0',
  /** helm.sh/helm/v3, built from resources/helm-tool (its go.sum pins every dependency). */
  helm: 'v3.22.0',
  /** PyPI kubernetes-validate: bundles Kubernetes JSON schemas, so validation needs no network. */
  kubernetesValidate: '1.37.0',
  /** PyPI schemathesis: fuzzes the management API against its OpenAPI document. */
  schemathesis: '4.32.5',
  /** PyPI openapi-spec-validator: checks the management API's OpenAPI document. */
  openapiSpecValidator: '0.9.0',
  /** github.com/kedacore/keda/v2: the ScaledObject CRD's schema comes from this module's zip. */
  keda: 'v2.21.0',
} as const;

export interface StackConfig {
  /**
   * The stack's pid files, holders, logs and data. One per machine by default
   * (`$XDG_STATE_HOME/hookstream`, else `~/.local/state/hookstream`): any checkout's `stack up`,
   * `npm start` or `npm test` finds the stack another one started there.
   */
  readonly stateDir: string;
  /** This checkout's own files (npm start's service logs and sample definition): `.hookstream/`. */
  readonly workDir: string;
  readonly cacheDir: string;
  readonly host: '127.0.0.1';
  readonly kafka: { readonly port: number; readonly controllerPort: number };
  readonly registry: { readonly port: number };
  readonly jaeger: {
    readonly mode: 'auto' | 'on' | 'off';
    readonly otlpGrpcPort: number;
    readonly otlpHttpPort: number;
    readonly queryPort: number;
    readonly queryGrpcPort: number;
  };
  readonly redis: { readonly mode: 'auto' | 'on' | 'off'; readonly port: number };
  readonly readyTimeoutMs: number;
  readonly buildTimeoutMs: number;
  readonly onVersionMismatch: 'refuse' | 'use';
}

/** Parses the environment once; a bad value fails naming the variable. */
export function loadStackConfig(env: Record<string, string | undefined> = process.env): StackConfig {
  const parsed = StackEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StackError(
      'BAD_CONFIG',
      `invalid ${issue?.path.join('.') ?? 'environment'}: ${issue?.message ?? 'bad value'}`,
    );
  }
  const e = parsed.data;
  const home = e.HOME ?? homedir();
  return {
    stateDir: resolve(
      e.HOOKSTREAM_STATE_DIR ?? join(e.XDG_STATE_HOME ?? join(home, '.local', 'state'), 'hookstream'),
    ),
    workDir: join(repoRoot, '.hookstream'),
    cacheDir: resolve(e.HOOKSTREAM_CACHE_DIR ?? join(e.XDG_CACHE_HOME ?? join(home, '.cache'), 'hookstream')),
    host: '127.0.0.1',
    kafka: { port: e.KAFKA_PORT, controllerPort: e.KAFKA_CONTROLLER_PORT },
    registry: { port: e.REGISTRY_PORT },
    jaeger: {
      mode: e.HOOKSTREAM_JAEGER,
      otlpGrpcPort: e.JAEGER_OTLP_GRPC_PORT,
      otlpHttpPort: e.JAEGER_OTLP_HTTP_PORT,
      queryPort: e.JAEGER_QUERY_PORT,
      queryGrpcPort: e.JAEGER_QUERY_GRPC_PORT,
    },
    redis: { mode: e.HOOKSTREAM_REDIS, port: e.REDIS_PORT },
    readyTimeoutMs: e.HOOKSTREAM_READY_TIMEOUT_S * 1000,
    buildTimeoutMs: e.HOOKSTREAM_BUILD_TIMEOUT_MIN * 60_000,
    onVersionMismatch: e.HOOKSTREAM_STACK_MISMATCH,
  };
}
