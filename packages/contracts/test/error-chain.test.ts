import { describe, expect, it } from 'vitest';
import { describeErrorChain } from '../src/error-chain.ts';

describe('describeErrorChain', () => {
  it("names each cause, kafkajs's originalError and an aggregate's errors", () => {
    const broker = Object.assign(new Error('Topic collides with existing topics: a_b'), {
      name: 'KafkaJSProtocolError',
    });
    const aggregate = Object.assign(new Error('Topic creation errors'), {
      name: 'KafkaJSAggregateError',
      errors: [broker],
    });
    const wrapped = new Error('could not create the tiers of a.b', { cause: aggregate });
    expect(describeErrorChain(wrapped)).toBe(
      'Error: could not create the tiers of a.b ← KafkaJSAggregateError: Topic creation errors ← KafkaJSProtocolError: Topic collides with existing topics: a_b',
    );
    const retried = Object.assign(new Error('retries exhausted'), { originalError: broker });
    expect(describeErrorChain(retried)).toContain('← KafkaJSProtocolError');
  });

  it('stops at a cycle, at six links, and at 2,000 characters', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(describeErrorChain(b)).toBe('Error: b ← Error: a');
    let deep: unknown = 'root';
    for (let i = 0; i < 10; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(describeErrorChain(deep).split(' ← ')).toHaveLength(6);
    expect(describeErrorChain(new Error('x'.repeat(5_000))).length).toBe(2_001);
    expect(describeErrorChain('plain')).toBe('plain');
  });
});
