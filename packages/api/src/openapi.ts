import { ErrorBody } from '@hookstream/api-schemas';
import { z } from 'zod';
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from './body-limits.ts';
import type { Route } from './route.ts';

type JsonSchema = Record<string, unknown>;

/** Schemas a document's operations share by `$ref` (`components.schemas`), by name. */
type Components = Record<string, JsonSchema>;

/**
 * A zod schema as an OpenAPI 3.1 schema object: JSON Schema draft 2020-12, which 3.1 uses, as
 * the request side validates (`input`: before defaults and transforms) or the answer is (`output`).
 * A recursive schema (a filter) comes with its own `$defs`, whose `#/$defs/…` references would
 * resolve against the document's root, where nothing is: they move to `components.schemas` under
 * a name scoped to where they came from, and every reference follows them.
 */
function schemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  components: Components,
  scope: string,
): JsonSchema {
  const {
    $schema: _,
    $defs,
    ...rest
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  if ($defs === undefined) return rest;
  const named = (def: string) => `${scope}.${def.replace(/[^A-Za-z0-9._-]/g, '')}`;
  const moved = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(moved);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) =>
        key === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
          ? [key, `#/components/schemas/${named(v.slice('#/$defs/'.length))}`]
          : [key, moved(v)],
      ),
    );
  };
  for (const [def, body] of Object.entries($defs)) components[named(def)] = moved(body) as JsonSchema;
  return moved(rest) as JsonSchema;
}

/**
 * `*`, or one or more revisions (the ETags this API gives), comma-separated; quoted as RFC 9110
 * writes entity tags, or bare (some clients and proxies drop the quotes).
 */
export const IF_MATCH_PATTERN = '^(\\*|"?[0-9]{1,19}"?(\\s*,\\s*"?[0-9]{1,19}"?)*)$';

/** The common failures every authenticated route may answer. */
const COMMON_ERRORS: Readonly<Record<number, string>> = {
  400: 'A path, query or body that does not validate',
  401: 'No bearer token, or an unknown one',
  429: 'Past the rate limit of the token; Retry-After says when to come back',
  500: 'Internal error',
  503: 'Kafka or the secrets key unavailable; Retry-After says when to try again',
};

/**
 * The schema an answer of this status must meet, as the document states it: the route's own,
 * else the error shape for a common failure; undefined for a status the document does not list.
 */
export function answerSchema(route: Route, status: number): z.ZodType | undefined {
  return (
    route.responses[status]?.schema ?? (commonErrors(route)[status] === undefined ? undefined : ErrorBody)
  );
}

/** The common failures of this route: those of every authenticated route, and of a body. */
function commonErrors(route: Route): Readonly<Record<number, string>> {
  if (route.public) return {};
  return route.body === undefined ? COMMON_ERRORS : { ...COMMON_ERRORS, ...BODY_ERRORS };
}

/** The failures of reading a body. */
const BODY_ERRORS: Readonly<Record<number, string>> = {
  400: `A path, query or body that does not validate: invalid_json (not JSON), body_too_deep (nests deeper than ${MAX_BODY_DEPTH}), body_too_complex (more than ${MAX_BODY_VALUES.toLocaleString('en-US')} values); nothing is written`,
  413: 'The body is larger than the limit (1 MiB by default)',
  415: 'A body other than application/json',
  422: 'A body that is JSON but not what the route takes; details name each field',
};

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function parameters(route: Route, components: Components): JsonSchema[] {
  const inPath = Object.entries(route.params.shape).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    schema: schemaOf(schema as z.ZodType, 'input', components, `${route.operationId}.${name}`),
  }));
  const query = schemaOf(route.query, 'input', components, `${route.operationId}.query`);
  const required = new Set((query.required as string[] | undefined) ?? []);
  const inQuery = Object.entries((query.properties as Record<string, JsonSchema> | undefined) ?? {}).map(
    ([name, schema]) => ({ name, in: 'query', required: required.has(name), schema }),
  );
  const conditional =
    route.method === 'PUT' || route.method === 'DELETE'
      ? [
          {
            name: 'If-Match',
            in: 'header',
            required: false,
            schema: { type: 'string', pattern: IF_MATCH_PATTERN },
          },
        ]
      : [];
  return [...inPath, ...inQuery, ...conditional];
}

function operation(route: Route, components: Components): JsonSchema {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses))
    responses[status] =
      spec.schema === ErrorBody
        ? errorResponse(spec.description)
        : {
            description: spec.description,
            content: {
              'application/json': {
                schema: schemaOf(spec.schema, 'output', components, `${route.operationId}.${status}`),
              },
            },
          };
  for (const [status, description] of Object.entries(commonErrors(route)))
    responses[status] ??= errorResponse(description);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.public ? { security: [] } : {}),
    parameters: parameters(route, components),
    ...(route.body === undefined || route.documentedBody === undefined
      ? {}
      : {
          requestBody: {
            required: !route.body.safeParse(undefined).success,
            content: {
              'application/json': {
                schema: schemaOf(route.documentedBody, 'input', components, `${route.operationId}.body`),
              },
            },
          },
        }),
    responses,
  };
}

/** The OpenAPI 3.1 document of a route table, every schema generated from the routes' zod schemas. */
export function openApiDocument(routes: readonly Route[], info: { readonly version: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const components: Components = { Error: schemaOf(ErrorBody, 'output', {}, 'Error') };
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operation(route, components);
    paths[route.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'hookstream management API',
      version: info.version,
      description:
        'Subscribers, dead letters, replays, ledgers, the event catalogue and the audit trail, for the operator (token=*) or one tenant (token@tenant).',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: components,
    },
  };
}
