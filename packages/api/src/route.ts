import { type Caller, ManagementError, type ManagementErrorCode } from '@hookstream/management';
import type { z } from 'zod';

/** A request as the server hands it to a route: strings from the URL, the body as JSON. */
export interface RawRequest {
  readonly caller: Caller;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** undefined: no body. */
  readonly body: unknown;
  readonly ifMatch: string | undefined;
  /** Aborted when the client goes away before the answer (a long poll stops waiting). */
  readonly signal?: AbortSignal;
}

/** An answer body that is JSON text already (a lease's events): sent as it is. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

export interface RouteAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One documented answer of a route. */
export interface ResponseSpec {
  readonly description: string;
  readonly schema: z.ZodType;
}

/**
 * One route of the table: what the server dispatches on and the OpenAPI document describes,
 * from the same schemas. `run` validates the request with them before the handler sees it.
 */
export interface Route {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** `/v1/subscribers/{name}`: each `{x}` is one path segment, validated by `params`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly params: z.ZodObject;
  readonly query: z.ZodObject;
  readonly body: z.ZodType | undefined;
  /**
   * The body as the document states it, where JSON Schema cannot say all `body` takes: PUT's
   * `name` must equal the path's, so the document leaves it out (a body may still repeat it).
   */
  readonly documentedBody: z.ZodType | undefined;
  /** Answers besides the common errors (400, 401, 429, 5xx), by status. */
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /** Served without a token (the document only). */
  readonly public: boolean;
  run(request: RawRequest): Promise<RouteAnswer>;
}

interface RouteDefinition<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType> {
  readonly method: Route['method'];
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly params: P;
  readonly query: Q;
  readonly body?: B;
  readonly documentedBody?: z.ZodType;
  /** The code a body that does not validate answers with (422). */
  readonly bodyError?: ManagementErrorCode;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  readonly public?: boolean;
  handle(input: {
    readonly caller: Caller;
    readonly params: z.output<P>;
    readonly query: z.output<Q>;
    readonly body: z.output<B>;
    /** The body as sent, for a route whose service validates it again in its own terms. */
    readonly rawBody: unknown;
    readonly ifMatch: string | undefined;
    readonly signal: AbortSignal;
  }): Promise<RouteAnswer>;
}

function parsed<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ManagementErrorCode,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ManagementError(code, `the ${what} is invalid; nothing was done`, {
    details: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  });
}

const NEVER = new AbortController().signal;

/** A route whose handler gets its path, query and body validated and typed. */
export function defineRoute<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType>(
  definition: RouteDefinition<P, Q, B>,
): Route {
  const { body } = definition;
  return {
    method: definition.method,
    path: definition.path,
    operationId: definition.operationId,
    summary: definition.summary,
    params: definition.params,
    query: definition.query,
    body,
    documentedBody: definition.documentedBody ?? body,
    responses: definition.responses,
    public: definition.public ?? false,
    run: (request) =>
      definition.handle({
        caller: request.caller,
        params: parsed(definition.params, request.params, 'invalid_request', 'path'),
        query: parsed(definition.query, request.query, 'invalid_request', 'query'),
        body: (body === undefined
          ? undefined
          : parsed(body, request.body, definition.bodyError ?? 'invalid_body', 'body')) as z.output<B>,
        rawBody: request.body,
        ifMatch: request.ifMatch,
        signal: request.signal ?? NEVER,
      }),
  };
}
