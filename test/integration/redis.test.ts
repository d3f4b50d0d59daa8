import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../support/stack.ts';

/** Sends one Redis command (RESP arrays of bulk strings) and returns the raw reply. */
function redisCommand(...args: string[]): Promise<string> {
  const payload = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = createConnection(endpoints.redis);
    let reply = '';
    socket.once('connect', () => socket.write(payload));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.endsWith('\r\n')) {
        socket.end();
        resolve(reply);
      }
    });
    socket.once('error', reject);
  });
}

describe('local Redis', () => {
  it('stores and returns a value', async () => {
    const key = `stack-test:${randomUUID()}`;
    expect(await redisCommand('SET', key, 'limiter', 'EX', '60')).toBe('+OK\r\n');
    expect(await redisCommand('GET', key)).toBe('$7\r\nlimiter\r\n');
  });
});
