import { describe, expect, it } from 'vitest';
import { newClusterId } from '../src/components/kafka.ts';

describe('newClusterId', () => {
  it('is 22 URL-safe characters and never starts with "-" (the storage tool would read an option)', () => {
    // 0xf8 encodes to '-' as the first base64url character.
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x01)];
    const id = newClusterId(() => draws.shift() ?? Buffer.alloc(16));
    expect(Buffer.alloc(16, 0xf8).toString('base64url').startsWith('-')).toBe(true);
    expect(id).toBe(Buffer.alloc(16, 0x01).toString('base64url'));
    expect(draws).toHaveLength(0);
    for (let i = 0; i < 500; i++) expect(newClusterId()).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  });
});
