import { describe, expect, it } from 'vitest';
import { parseToolEnv } from '../src/tool-env.ts';

describe('the tools environment', () => {
  it('takes the documented defaults, an empty variable counting as unset', () => {
    expect(parseToolEnv({ HOOKSTREAM_EVENTS_TOPIC: '', USER: 'ops' })).toEqual({
      HOOKSTREAM_EVENTS_TOPIC: 'events',
      HOOKSTREAM_RECEIVER_HOST: '127.0.0.1',
      USER: 'ops',
    });
  });

  it.each([
    ['HOOKSTREAM_EVENTS_TOPIC', 'not a topic!'],
    ['JAEGER_QUERY_URL', 'ftp://jaeger:16686'],
    ['JAEGER_QUERY_URL', 'jaeger'],
    ['HOOKSTREAM_RECEIVER_HOST', 'x'.repeat(300)],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => parseToolEnv({ [name]: value })).toThrow(new RegExp(`^invalid ${name}: `));
  });
});
