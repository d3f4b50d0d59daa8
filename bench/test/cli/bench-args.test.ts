import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { benchCommand } from '../../src/cli/bench-command.ts';

// Argument handling of `hookstream bench` and its parts: refused with exit 2 and the usage before
// any Kafka call (the broker points at a closed port, where a call would end in exit 1).
describe('hookstream bench (argument handling)', () => {
  let err: MockInstance<typeof process.stderr.write>;
  const said = () => err.mock.calls.map((c) => String(c[0])).join('');

  beforeEach(() => {
    err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.stubEnv('KAFKA_BROKERS', '127.0.0.1:1');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    err.mockRestore();
  });

  it('refuses an unknown target with its usage', async () => {
    expect(await benchCommand(['pusher'])).toBe(2);
    expect(said()).toContain('hookstream bench ingress');
  });

  it.each([
    [['--fleet', '--fleet-subscribers', '0']],
    [['--fleet-subscribers', '20']],
    [['--only', 'fleet']],
  ])('refuses a fleet size out of bounds, or without --fleet: %j', async (args) => {
    expect(await benchCommand(args)).toBe(2);
    expect(said()).toContain('--fleet-subscribers');
  });

  it.each([
    [['--smoke', '--quick']],
    [['--smoke', '--events', '100']],
    [['--smoke', '--fleet-subscribers', '0']],
  ])('refuses --smoke with another size: %j', async (args) => {
    expect(await benchCommand(args)).toBe(2);
    expect(said()).toContain('--smoke');
  });

  it.each([
    [['e2e', '--rate', '0'], '--rate must be 0..100000 events/s', 'Usage: hookstream bench e2e'],
    [['limiter', '--instances', '3'], '--instances must be 1 or 2', 'Usage: hookstream bench limiter'],
    [['retry', '--jitter', '3'], '--jitter must be between 0 and 1', 'Usage: hookstream bench retry'],
    [['cpu-baseline', '--events', '10'], "Unknown option '--events'", 'Usage: hookstream bench cpu-baseline'],
    [
      ['fleet', '--active', '3', '--dead', '3'],
      '--dead 3 leaves none of the 3 active healthy',
      'Usage: hookstream bench fleet',
    ],
  ])('refuses %j with its reason and usage', async (args, reason, usage) => {
    expect(await benchCommand(args)).toBe(2);
    expect(said()).toContain(reason);
    expect(said()).toContain(usage);
  });
});
