import type { ManagementService } from '@hookstream/management';
import { describe, expect, it } from 'vitest';
import { managementRoutes } from '../src/index.ts';
import { openApiDocument } from '../src/openapi.ts';

/** Every `$ref` anywhere in a JSON value. */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === '$ref' && typeof v === 'string' ? [v] : refs(v),
  );
}

/** What a JSON pointer of the document names, or undefined. */
function resolve(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}

describe('the OpenAPI document', () => {
  // The routes' handlers are never called here: only their descriptions are read.
  const document = openApiDocument(
    managementRoutes({} as ManagementService, () => ({})),
    { version: 'test' },
  );

  it('has no unresolvable reference: a recursive schema (the filter) is under components.schemas', () => {
    const all = refs(document);
    expect(all).toContain('#/components/schemas/putSubscriber.body.__schema0');
    expect(all.filter((ref) => resolve(document, ref) === undefined)).toEqual([]);
    expect(JSON.stringify(document)).not.toContain('"$defs"');
  });
});
