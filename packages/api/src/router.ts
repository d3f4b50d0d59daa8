import type { Route } from './route.ts';

/** A route found for a request, with its path's `{x}` segments. */
export type Match =
  | { readonly kind: 'route'; readonly route: Route; readonly params: Record<string, string> }
  | { readonly kind: 'method'; readonly allow: readonly string[] }
  | { readonly kind: 'none' };

/** Longest path a request may have: names and ids are bounded, so a longer one matches nothing. */
const MAX_PATH_LENGTH = 1024;

/** Finds the route of a method and path by its segments (a `{x}` segment takes any one segment). */
export class Router {
  readonly #routes: readonly { route: Route; segments: readonly string[] }[];

  constructor(routes: readonly Route[]) {
    this.#routes = routes.map((route) => ({ route, segments: route.path.split('/') }));
  }

  match(method: string, path: string): Match {
    if (path.length > MAX_PATH_LENGTH) return { kind: 'none' };
    const segments = path.split('/');
    const allow: string[] = [];
    for (const { route, segments: pattern } of this.#routes) {
      const params = matchSegments(pattern, segments);
      if (params === null) continue;
      if (route.method === method) return { kind: 'route', route, params };
      allow.push(route.method);
    }
    return allow.length > 0 ? { kind: 'method', allow } : { kind: 'none' };
  }
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] ?? '';
    const s = segments[i] ?? '';
    if (p.startsWith('{') && p.endsWith('}')) {
      if (s === '') return null;
      let value: string;
      try {
        value = decodeURIComponent(s);
      } catch {
        return null;
      }
      params[p.slice(1, -1)] = value;
    } else if (p !== s) return null;
  }
  return params;
}
