import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The rule that lets shared files run side by side (vitest.config.ts, CONTRIBUTING.md), checked
// on their sources: a fixed port or a fixed Kafka name is found here, not by a flake.
const ROOT = join(import.meta.dirname, '..');
const SHARED_DIRS = ['test', 'test/integration', 'test/scenarios'];

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f));
}

const shared = SHARED_DIRS.flatMap(testFiles);
const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** What only an exclusive file may use: its own brokers, or the stack's servers themselves. */
const EXCLUSIVE_ONLY = [
  /support\/private-kafka\.ts/,
  /support\/secure-kafka\.ts/,
  /\bKafkaCluster\b/,
  /\bSecureKafka\b/,
  /\bstackUp\(|\bstackDown\(|\breleaseAndStop\(/,
];

/** A port this file did not get from binding 0 or from support/ports.ts. */
const FIXED_PORT = [
  /\.listen\(\s*[1-9]\d*/,
  /'--[a-z-]*port',\s*'[1-9]\d*'/,
  /\b(?:127\.0\.0\.1|localhost):[1-9]\d{1,4}\b/,
  /\bport:\s*[1-9]\d{2,4}\b/,
  /_PORT:\s*'[1-9]\d*'/,
];

/** A Kafka name every run (and every checkout) would share. */
const FIXED_NAME = [
  /'--(?:topic|match|subscriber)',\s*'[a-z0-9][a-z0-9._*,-]*'/,
  /\bgroupId:\s*'[^']+'/,
  /'hookstream\.sub\.[a-z0-9]/,
  /\b(?:INGRESS_TOPIC|HOOKSTREAM_EVENTS_TOPIC):\s*'[^']+'/,
];

/**
 * Files whose literals are not the ones they run with: the manifest readers check the ports and
 * names that Compose and the chart set (they bind and name nothing), and this file holds the
 * patterns' own examples.
 */
const NOT_RUN_WITH = new Set(['test/compose.test.ts', 'test/helm-chart.test.ts', 'test/layout.test.ts']);
const checked = () => shared.filter((f) => !NOT_RUN_WITH.has(f));

function offending(file: string, patterns: readonly RegExp[]): string[] {
  return source(file)
    .split('\n')
    .flatMap((line, i) =>
      patterns.some((p) => p.test(line)) && !line.trim().startsWith('//') && !line.trim().startsWith('*')
        ? [`${file}:${i + 1}: ${line.trim()}`]
        : [],
    );
}

describe('the shared files keep to their own names and ports', () => {
  it('finds the shared files', () => {
    expect(shared.length).toBeGreaterThan(50);
    expect(shared).toContain('test/integration/pusher-delivery.test.ts');
  });

  it('no shared file starts brokers of its own or stops the stack (those are test/exclusive/)', () => {
    expect(checked().flatMap((f) => offending(f, EXCLUSIVE_ONLY))).toEqual([]);
  });

  it('no shared file listens on or passes a fixed port', () => {
    expect(checked().flatMap((f) => offending(f, FIXED_PORT))).toEqual([]);
  });

  it('no shared file uses a fixed topic, group or subscriber name', () => {
    expect(checked().flatMap((f) => offending(f, FIXED_NAME))).toEqual([]);
  });

  it('the patterns catch what they are for', () => {
    const caught = (patterns: readonly RegExp[], line: string) => patterns.some((p) => p.test(line));
    expect(caught(FIXED_PORT, "server.listen(8090, '127.0.0.1')")).toBe(true);
    expect(caught(FIXED_PORT, "['receiver', '--port', '8091']")).toBe(true);
    expect(caught(FIXED_PORT, "const url = 'http://127.0.0.1:8080/v1/events'")).toBe(true);
    expect(caught(FIXED_PORT, 'server.listen(0, host)')).toBe(false);
    expect(caught(FIXED_PORT, "['--port', String(port)]")).toBe(false);
    expect(caught(FIXED_PORT, "['api', '--port', '0']")).toBe(false);
    expect(caught(FIXED_NAME, "['push', '--all', '--topic', 'events']")).toBe(true);
    expect(caught(FIXED_NAME, "groupId: 'my-group'")).toBe(true);
    expect(caught(FIXED_NAME, "['--topic', uniqueName('events')]")).toBe(false);
    expect(caught(EXCLUSIVE_ONLY, "import { PrivateKafka } from '../support/private-kafka.ts';")).toBe(true);
  });

  it('every root test file is in exactly one project', () => {
    const exclusive = testFiles('test/exclusive');
    const all = [...shared, ...exclusive].map((f) => relative(ROOT, join(ROOT, f)));
    expect(new Set(all).size).toBe(all.length);
    expect(readdirSync(join(ROOT, 'test')).filter((d) => !d.includes('.'))).toEqual(
      expect.arrayContaining(['integration', 'scenarios', 'exclusive', 'support', 'runner']),
    );
  });
});
