import { describe, expect, it } from 'vitest';
import { startTracing } from '../src/tracing.ts';
import { DEFAULT_TRACING_CONFIG, loadTracingConfig, TracingConfigError } from '../src/tracing-config.ts';

describe('loadTracingConfig', () => {
  it('keeps every trace when nothing is set, as local runs and tests want', () => {
    expect(loadTracingConfig({})).toEqual({ sampler: 'parentbased_always_on', ratio: 1 });
    expect(loadTracingConfig({ OTEL_TRACES_SAMPLER: '', OTEL_TRACES_SAMPLER_ARG: ' ' })).toBe(
      DEFAULT_TRACING_CONFIG,
    );
  });

  it('reads a parent-based ratio, the production shape', () => {
    expect(
      loadTracingConfig({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
    ).toEqual({ sampler: 'parentbased_traceidratio', ratio: 0.1 });
    // The specification's default ratio.
    expect(loadTracingConfig({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toEqual({
      sampler: 'traceidratio',
      ratio: 1,
    });
    // A sampler without a ratio ignores the argument, as the specification says.
    expect(loadTracingConfig({ OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: '0.5' })).toEqual({
      sampler: 'always_off',
      ratio: 1,
    });
  });

  it('fails on a bad value, naming the variable and the value', () => {
    const fails = (env: Record<string, string>) => {
      try {
        loadTracingConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(TracingConfigError);
        expect((err as TracingConfigError).code).toBe('BAD_CONFIG');
        return (err as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    expect(fails({ OTEL_TRACES_SAMPLER: 'parentbased_ratio' })).toMatch(
      /^OTEL_TRACES_SAMPLER: .*parentbased_traceidratio.*\(got 'parentbased_ratio'\)$/,
    );
    const ratio = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' };
    expect(fails({ ...ratio, OTEL_TRACES_SAMPLER_ARG: '10%' })).toMatch(
      /^OTEL_TRACES_SAMPLER_ARG: .*\(got '10%'\)$/,
    );
    expect(fails({ ...ratio, OTEL_TRACES_SAMPLER_ARG: '1.5' })).toMatch(/^OTEL_TRACES_SAMPLER_ARG: .*1/);
    expect(fails({ ...ratio, OTEL_TRACES_SAMPLER_ARG: '-0.1' })).toMatch(/^OTEL_TRACES_SAMPLER_ARG: /);
    // A ratio on its own would be ignored: every trace kept while the operator thinks a tenth.
    expect(fails({ OTEL_TRACES_SAMPLER_ARG: '0.1' })).toMatch(
      /^OTEL_TRACES_SAMPLER_ARG: .*OTEL_TRACES_SAMPLER is not/,
    );
  });

  it('stops startTracing before anything starts, tracing off or on', async () => {
    const bad = { OTEL_TRACES_SAMPLER: 'jaeger_remote' };
    await expect(startTracing({ serviceName: 'test', env: bad })).rejects.toThrow(/^OTEL_TRACES_SAMPLER: /);
    await expect(
      startTracing({ serviceName: 'test', env: { ...bad, OTEL_SDK_DISABLED: 'true' } }),
    ).rejects.toBeInstanceOf(TracingConfigError);
  });
});
