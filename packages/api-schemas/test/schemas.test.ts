import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_LIMIT, ListQuery, MAX_PAGE_LIMIT, PutBody, RewindBody } from '../src/index.ts';

describe('the management API contract', () => {
  it('bounds a page: the default when none is named, at most MAX_PAGE_LIMIT', () => {
    expect(ListQuery.parse({}).limit).toBe(DEFAULT_PAGE_LIMIT);
    expect(ListQuery.parse({ limit: String(MAX_PAGE_LIMIT) }).limit).toBe(MAX_PAGE_LIMIT);
    for (const limit of ['0', String(MAX_PAGE_LIMIT + 1), '1.5', 'ten'])
      expect(ListQuery.safeParse({ limit }).success, limit).toBe(false);
  });

  it("takes a definition as apply does, and a rewind's target as text, dry run off by default", () => {
    expect(PutBody.safeParse({ url: 'https://hooks.example.com/in' }).success).toBe(true);
    expect(PutBody.safeParse({ url: 'ftp://nowhere' }).success).toBe(false);
    expect(RewindBody.parse({ to: 'earliest' })).toEqual({ to: 'earliest', dryRun: false });
    expect(RewindBody.safeParse({ to: '' }).success).toBe(false);
    expect(RewindBody.safeParse({ to: 'earliest', extra: 1 }).success).toBe(false);
  });
});
