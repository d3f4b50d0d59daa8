import type { TopicSpec } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import { TopicCreations } from '../src/topic-creations.ts';

const spec = (topic: string): TopicSpec => ({ topic, partitions: 1, replicationFactor: 1 });

/** A broker's topic creation: what exists, each request it got, and topics it refuses. */
function fakeBroker(refused: readonly string[] = []) {
  const existing = new Set<string>();
  const requests: string[][] = [];
  const ensure = async (specs: readonly TopicSpec[]) => {
    requests.push(specs.map((s) => s.topic));
    await new Promise((r) => setImmediate(r));
    const bad = specs.find((s) => refused.includes(s.topic));
    if (bad !== undefined) throw new Error(`policy refuses ${bad.topic}`);
    const created = specs.map((s) => s.topic).filter((t) => !existing.has(t));
    for (const t of created) existing.add(t);
    return created;
  };
  return { existing, requests, ensure };
}

describe('TopicCreations', () => {
  it('requests of one turn, and those made while one is under way, share a request; each learns what it created, and a topic asked twice is created once', async () => {
    const broker = fakeBroker();
    const creations = new TopicCreations(broker.ensure);
    const answers = await Promise.all([
      creations.ensure([spec('a.retry.1'), spec('a.dlq')]),
      creations.ensure([spec('b.retry.1'), spec('notices')]),
      creations.ensure([spec('c.retry.1'), spec('notices')]),
      creations.ensure([spec('d.retry.1')]),
    ]);
    expect(answers).toEqual([['a.retry.1', 'a.dlq'], ['b.retry.1', 'notices'], ['c.retry.1'], ['d.retry.1']]);
    expect(broker.requests).toEqual([
      ['a.retry.1', 'a.dlq', 'b.retry.1', 'notices', 'c.retry.1', 'd.retry.1'],
    ]);
    // One under way: the requests arriving meanwhile wait and share the next.
    const under = creations.ensure([spec('e')]);
    await new Promise((r) => setImmediate(r));
    const later = [creations.ensure([spec('f')]), creations.ensure([spec('g')])];
    await Promise.all([under, ...later]);
    expect(broker.requests.slice(1)).toEqual([['e'], ['f', 'g']]);
    expect(await creations.ensure([spec('a.dlq')])).toEqual([]);
  });

  it("a refused topic fails only the request that asked for it: the others' topics are made one by one", async () => {
    const broker = fakeBroker(['bad.retry.1']);
    const creations = new TopicCreations(broker.ensure);
    const first = creations.ensure([spec('x')]);
    const results = await Promise.allSettled([
      creations.ensure([spec('good.retry.1'), spec('good.dlq')]),
      creations.ensure([spec('bad.retry.1'), spec('bad.dlq')]),
    ]);
    await first;
    expect(results[0]).toEqual({ status: 'fulfilled', value: ['good.retry.1', 'good.dlq'] });
    expect(results[1]).toMatchObject({
      status: 'rejected',
      reason: { message: 'policy refuses bad.retry.1' },
    });
    expect([...broker.existing].sort()).toEqual(['bad.dlq', 'good.dlq', 'good.retry.1', 'x']);
  });
});
