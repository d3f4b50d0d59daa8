import { describe, expect, it, vi } from 'vitest';
import { benchCommand } from '../../src/cli/bench-command.ts';
import { parseBenchFleetArgs } from '../../src/cli/bench-fleet.ts';

describe('hookstream bench fleet (argument handling)', () => {
  it('defaults to issue 11: 1000 subscribers, 100 active at 10/s, 10 dead, 60 s idle, 30 s loads', () => {
    expect(parseBenchFleetArgs([])).toEqual({
      kind: 'run',
      json: false,
      settings: {
        subscribers: 1000,
        routing: 'event-type',
        active: 100,
        dead: 10,
        perSubscriberPerSecond: 10,
        idleSeconds: 60,
        loadSeconds: 30,
        joinTimeoutSeconds: 300,
      },
    });
  });

  it('scales the active and dead defaults down to a small fleet, keeping one healthy', () => {
    const parsed = parseBenchFleetArgs(['--subscribers', '5', '--json']);
    expect(parsed).toMatchObject({
      kind: 'run',
      json: true,
      settings: { subscribers: 5, active: 5, dead: 4 },
    });
    expect(parseBenchFleetArgs(['--subscribers', '1'])).toMatchObject({ settings: { active: 1, dead: 0 } });
  });

  it('routes by a tenant each with --tenants, the other settings as without it', () => {
    const plain = parseBenchFleetArgs(['--subscribers', '20', '--json']);
    const tenants = parseBenchFleetArgs(['--subscribers', '20', '--tenants', '--json']);
    expect(tenants).toMatchObject({ kind: 'run', json: true, settings: { routing: 'tenant' } });
    if (plain.kind !== 'run' || tenants.kind !== 'run') throw new Error('both should run');
    expect({ ...tenants.settings, routing: 'event-type' }).toEqual(plain.settings);
  });

  it.each([
    [['--tenants=yes'], "Option '--tenants' does not take an argument"],
    [['--subscribers', '0'], '--subscribers must be an integer from 1 to 5000'],
    [['--subscribers', '1.5'], '--subscribers must be an integer'],
    [['--subscribers', ''], '--subscribers must be an integer'],
    [['--idle-seconds', 'sixty'], '--idle-seconds must be an integer from 1 to 3600'],
    [['--load-seconds', '601'], '--load-seconds must be an integer from 1 to 600'],
    [['--join-timeout', '5'], '--join-timeout must be an integer from 10 to 3600'],
    [['--subscribers', '5', '--active', '6'], '--active 6 exceeds --subscribers 5'],
    [['--active', '3', '--dead', '3'], '--dead 3 leaves none of the 3 active healthy'],
    [['--active', '1000', '--rate', '11'], '--active × --rate is at most 10000 events/s'],
    [['--frobnicate'], "Unknown option '--frobnicate'"],
  ])('refuses %j', (args, error) => {
    const parsed = parseBenchFleetArgs(args);
    expect(parsed.kind).toBe('bad');
    expect(parsed.kind === 'bad' && parsed.error).toContain(error);
  });

  it('exits 2 with its usage on a bad option, before any Kafka call', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    // Pointing at a closed port: a Kafka call would fail with 1, not 2.
    vi.stubEnv('KAFKA_BROKERS', '127.0.0.1:1');
    expect(await benchCommand(['fleet', '--rate', '0'])).toBe(2);
    const text = write.mock.calls.map((c) => String(c[0])).join('');
    expect(text).toContain('--rate must be an integer from 1 to 100');
    expect(text).toContain('Usage: hookstream bench fleet');
    vi.unstubAllEnvs();
    write.mockRestore();
  });
});
