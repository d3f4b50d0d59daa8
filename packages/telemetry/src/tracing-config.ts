import { HookstreamError } from '@hookstream/contracts';
import { z } from 'zod';

/** The OTEL_TRACES_SAMPLER values hookstream's tracing SDK builds (the spec's built-in ones). */
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** As the OpenTelemetry SDKs read the environment: a blank value is an unset one. */
const unsetWhenBlank = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/**
 * The sampler's variables, the standard ones (OpenTelemetry's environment specification), read
 * once at start-up by startTracing for every traced process. Unset: every new trace is kept
 * (parent-based, always on), what a local run and the tests want; the Helm chart sets the
 * production default (`otel.sampleRatio`, docs/deployment.md).
 */
export const TracingEnv = z.object({
  OTEL_TRACES_SAMPLER: z.preprocess(unsetWhenBlank, z.enum(TRACES_SAMPLERS).optional()),
  /** The share of new traces the ratio samplers keep, 0..1; the others ignore it. */
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(unsetWhenBlank, z.coerce.number().min(0).max(1).optional()),
});
export type TracingEnv = z.infer<typeof TracingEnv>;

/** How new traces are sampled (retries and dead letters are always: retry-sampling.ts). */
export interface TracingConfig {
  readonly sampler: TracesSampler;
  /** The ratio samplers' share of new traces; 1 for the others. */
  readonly ratio: number;
}

/** The default when nothing is set: every trace, so every local delivery shows in Jaeger. */
export const DEFAULT_TRACING_CONFIG: TracingConfig = { sampler: 'parentbased_always_on', ratio: 1 };

/** A tracing variable that stops the process from starting; the message names it. */
export class TracingConfigError extends HookstreamError<'BAD_CONFIG'> {
  constructor(message: string) {
    super('BAD_CONFIG', message, false);
  }
}

/**
 * The sampler from the environment. A value the SDK would only have warned about and replaced
 * with its default (an unknown sampler, a ratio outside 0..1 or not a number) fails here instead:
 * a production fleet silently tracing everything, or nothing, is found out when it costs.
 */
export function loadTracingConfig(env: Readonly<Record<string, string | undefined>>): TracingConfig {
  const parsed = TracingEnv.safeParse({
    OTEL_TRACES_SAMPLER: env.OTEL_TRACES_SAMPLER,
    OTEL_TRACES_SAMPLER_ARG: env.OTEL_TRACES_SAMPLER_ARG,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'OTEL_TRACES_SAMPLER');
    throw new TracingConfigError(`${name}: ${issue?.message} (got '${env[name] ?? ''}')`);
  }
  const { OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: arg } = parsed.data;
  // A ratio alone is ignored by every SDK (it only parametrises a ratio sampler): the process
  // would keep every trace while its operator believes it keeps a share.
  if (sampler === undefined && arg !== undefined)
    throw new TracingConfigError(
      `OTEL_TRACES_SAMPLER_ARG: set to ${arg} but OTEL_TRACES_SAMPLER is not, so it would be ignored; ` +
        'set OTEL_TRACES_SAMPLER=parentbased_traceidratio to keep that share of new traces',
    );
  if (sampler === undefined) return DEFAULT_TRACING_CONFIG;
  const takesRatio = sampler === 'traceidratio' || sampler === 'parentbased_traceidratio';
  // The specification's default ratio when the argument is unset.
  return { sampler, ratio: takesRatio ? (arg ?? 1) : 1 };
}
