import { formatHeadroomCell } from '@hookstream/subscribers';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.ts';
import { formatDelay, parseDuration } from '../src/subscribers-output.ts';

describe('hookstream subscribers (no Kafka needed)', () => {
  it.each([
    ['0', 0],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
  ])('parses the duration %j', (text, ms) => {
    expect(parseDuration('--grace', text)).toBe(ms);
  });

  it.each(['24', '-1h', '1.5h', 'soon', ''])('refuses the duration %j as a bad option', (text) => {
    expect(() => parseDuration('--grace', text)).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });

  it.each([
    [1000, '1s'],
    [600_000, '10m'],
    [3_600_000, '1h'],
    [1500, '1500ms'],
  ])('formats the delay %d as %s', (ms, text) => {
    expect(formatDelay(ms)).toBe(text);
  });

  it.each([
    [null, null, '-'],
    ['unbounded', null, 'unbounded'],
    [41, 'time', '41s'],
    [3 * 3600 + 12 * 60, 'time', '3h12m'],
    [125, 'bytes', '2m5s (bytes, 1h rate)'],
  ] as const)('shows the retention headroom %j (%s) as %s', (seconds, basis, text) => {
    expect(formatHeadroomCell(seconds, basis)).toBe(text);
  });

  it.each([
    [['subscribers'], 2],
    [['subscribers', 'sideways'], 2],
    [['subscribers', 'secret', 'sideways', 'x'], 2],
    [['subscribers', 'pause'], 2],
    [['subscribers', 'pause', 'UPPER'], 2],
    [['subscribers', 'apply', 'x.json', '--reason', 'r'], 2],
    [['subscribers', 'delete', 'x', '--yes'], 2],
    [['subscribers', '--help'], 0],
  ])('%j exits %d before touching Kafka', async (argv, code) => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(await main(argv)).toBe(code);
    err.mockRestore();
    out.mockRestore();
  });
});
