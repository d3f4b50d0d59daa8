import { describe, expect, it } from 'vitest';
import { loadStackConfig } from '../src/config.ts';
import { StackError } from '../src/errors.ts';

describe('loadStackConfig', () => {
  it('uses the documented defaults on loopback', () => {
    const config = loadStackConfig({ HOME: '/home/u' });
    expect(config.host).toBe('127.0.0.1');
    expect(config.kafka).toEqual({ port: 9092, controllerPort: 9093 });
    expect(config.registry.port).toBe(8081);
    expect(config.jaeger).toMatchObject({ mode: 'auto', otlpHttpPort: 4318, queryPort: 16686 });
    // One stack per machine: the state is the user's, not a checkout's.
    expect(config.stateDir).toBe('/home/u/.local/state/hookstream');
    expect(config.cacheDir).toBe('/home/u/.cache/hookstream');
    expect(config.workDir.endsWith('/.hookstream')).toBe(true);
    expect(config.onVersionMismatch).toBe('refuse');
  });

  it('follows XDG_STATE_HOME and XDG_CACHE_HOME', () => {
    const config = loadStackConfig({
      HOME: '/home/u',
      XDG_STATE_HOME: '/x/state',
      XDG_CACHE_HOME: '/x/cache',
    });
    expect(config.stateDir).toBe('/x/state/hookstream');
    expect(config.cacheDir).toBe('/x/cache/hookstream');
  });

  it('reads ports and folders from the environment', () => {
    const config = loadStackConfig({
      KAFKA_PORT: '19092',
      REGISTRY_PORT: '18081',
      HOOKSTREAM_STATE_DIR: '/tmp/s',
      HOOKSTREAM_CACHE_DIR: '/tmp/c',
      HOOKSTREAM_JAEGER: 'off',
    });
    expect(config.kafka.port).toBe(19092);
    expect(config.registry.port).toBe(18081);
    expect(config.stateDir).toBe('/tmp/s');
    expect(config.cacheDir).toBe('/tmp/c');
    expect(config.jaeger.mode).toBe('off');
  });

  it.each([
    ['KAFKA_PORT', 'ninety'],
    ['REGISTRY_PORT', '70000'],
    ['HOOKSTREAM_JAEGER', 'maybe'],
    ['HOOKSTREAM_READY_TIMEOUT_S', '-1'],
    ['HOOKSTREAM_BUILD_TIMEOUT_MIN', '100000'],
    ['HOOKSTREAM_STACK_MISMATCH', 'sometimes'],
  ])('fails naming %s when it is %s', (name, value) => {
    let caught: unknown;
    try {
      loadStackConfig({ [name]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StackError);
    expect((caught as StackError).code).toBe('BAD_CONFIG');
    expect((caught as StackError).message).toContain(name);
  });
});
