import { omitUndefined } from '@toolbus/spec';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { ApiKeyScope, Principal } from './principal.ts';
import { checkedResponse } from './response-check.ts';
import { ServerError } from './server-error.ts';

/** Who may call a route: anyone, a signed-in user (with a key scope), or an admin. */
export type RouteAccess =
  | { readonly kind: 'public' }
  | { readonly kind: 'user'; readonly scope: ApiKeyScope }
  | { readonly kind: 'admin' };

/** One response of a route, as documented. */
export interface RouteResponse {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** Default `application/json` when a schema is given. */
  readonly contentType?: string;
}

/** A route described with zod: what it reads, what it answers, who may call it. */
export interface RouteDefinition<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  readonly method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** In OpenAPI form: `/v1/chats/{chatId}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly access: RouteAccess;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /** A body of raw bytes (an upload) the handler reads itself: documented, never parsed as JSON. */
  readonly rawBody?: { readonly description: string; readonly contentType?: string };
  readonly responses: Readonly<Record<number, RouteResponse>>;
}

/** What a handler gets: the validated inputs and the caller. */
export interface RouteInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Undefined only on public routes. */
  readonly principal: Principal;
  readonly context: Context;
}

/** Finds the caller of a request and checks it may use `access`; throws a 401/403 {@link ServerError}. */
export type RouteGuard = (context: Context, access: RouteAccess) => Promise<Principal | undefined>;

type Handler<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> = (
  input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>,
) => Promise<Response> | Response;

interface Registered {
  readonly definition: RouteDefinition;
  /** Undefined for a route served by a handler of its own ({@link RouteRegistry.describe}). */
  readonly handler: Handler<z.ZodType, z.ZodType, z.ZodType> | undefined;
}

/**
 * The server's routes, each described once with zod: the same definition validates requests (a 400 names the
 * field) and produces the OpenAPI document, so the document cannot drift from what the server accepts.
 */
export class RouteRegistry {
  readonly #routes: Registered[] = [];

  /** Adds a route; mount with {@link RouteRegistry.mount}. */
  add<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
    definition: RouteDefinition<P, Q, B>,
    handler: Handler<P, Q, B>,
  ): void {
    const body = definition.body === undefined ? {} : { body: closedBody(definition.body) };
    // A described query refuses parameters it does not name, as a body does (a misspelt `?aftre=` is a 400, not a
    // silently ignored cursor). Routes whose clients add parameters of their own (an OAuth redirect) describe
    // their query with `z.looseObject`; routes with no query described (the `useChat` ones) read none and stay
    // tolerant.
    const query = definition.query === undefined ? {} : { query: closedBody(definition.query) };
    this.#routes.push({
      definition: { ...definition, ...body, ...query } as unknown as RouteDefinition,
      handler: handler as unknown as Handler<z.ZodType, z.ZodType, z.ZodType>,
    });
  }

  /**
   * Documents a route that is served outside the registry (a hot path kept off the guard, or a protocol endpoint
   * with a handler of its own, like MCP): it is in the OpenAPI document, and {@link RouteRegistry.mount} leaves it.
   */
  describe(definition: RouteDefinition): void {
    this.#routes.push({ definition, handler: undefined });
  }

  /** Every route, in the order added. */
  get definitions(): readonly RouteDefinition[] {
    return this.#routes.map((route) => route.definition);
  }

  /**
   * Registers every route on `app`, each checked by `guard` before its inputs are read. With `checkResponses`,
   * each answer is also checked against the route's declared responses ({@link checkedResponse}).
   */
  mount(app: Hono, guard: RouteGuard, options: { readonly checkResponses?: boolean } = {}): void {
    for (const { definition, handler } of this.#routes) {
      if (handler === undefined) continue;
      const honoPath = definition.path.replace(/\{([^}]+)\}/g, ':$1');
      app.on(definition.method.toUpperCase(), honoPath, async (context) => {
        const principal = await guard(context, definition.access);
        const params = parseInput(definition.params, context.req.param(), 'path');
        const query = parseInput(definition.query, context.req.query(), 'query');
        const body =
          definition.body === undefined
            ? undefined
            : parseInput(definition.body, await readJson(context), 'body');
        const response = await handler({ params, query, body, principal: principal as Principal, context });
        return options.checkResponses ? checkedResponse(definition, response) : response;
      });
    }
  }

  /** The OpenAPI 3.1 document of every route. */
  openApiDocument(info: { readonly title: string; readonly version: string; readonly serverUrl?: string }) {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const { definition } of this.#routes) {
      const operation: Record<string, unknown> = {
        operationId: definition.operationId,
        summary: definition.summary,
        tags: [definition.tag],
        parameters: [...parametersOf(definition.params, 'path'), ...parametersOf(definition.query, 'query')],
        responses: Object.fromEntries(
          Object.entries(definition.responses).map(([status, response]) => [
            status,
            {
              description: response.description,
              ...(response.schema || response.contentType
                ? {
                    content: {
                      [response.contentType ?? 'application/json']: response.schema
                        ? { schema: jsonSchemaOf(response.schema, 'output') }
                        : {},
                    },
                  }
                : {}),
            },
          ]),
        ),
        ...(definition.access.kind === 'public' ? { security: [] } : {}),
      };
      if (definition.body) {
        operation.requestBody = {
          required: true,
          content: { 'application/json': { schema: jsonSchemaOf(definition.body, 'input') } },
        };
      } else if (definition.rawBody) {
        operation.requestBody = {
          required: true,
          description: definition.rawBody.description,
          content: {
            [definition.rawBody.contentType ?? 'application/octet-stream']: {
              schema: { type: 'string', format: 'binary' },
            },
          },
        };
      }
      paths[definition.path] ??= {};
      (paths[definition.path] as Record<string, unknown>)[definition.method] = operation;
    }
    return {
      openapi: '3.1.0',
      info: { title: info.title, version: info.version },
      ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'A toolbus API key (tb_…).' },
        },
      },
      security: [{ bearerAuth: [] }],
      paths,
    };
  }
}

/** Validates one part of a request; a failure names the first field at fault, e.g. `body.content`. */
export function parseInput(schema: z.ZodType | undefined, value: unknown, part: string): never | unknown {
  if (schema === undefined) return value;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = mostSpecificIssue(parsed.error.issues);
  if (issue?.code === 'unrecognized_keys') {
    // An unknown field is most often a misspelt one: name it, and the fields the request has.
    const field = [part, ...issue.path.map(String), String(issue.keys[0])].join('.');
    const known = fieldsOf(schema, issue.path);
    throw new ServerError({
      code: 'invalid_request',
      field,
      message: `${field}: not a field of this request${known.length > 0 ? ` (its fields: ${known.join(', ')})` : ''}.`,
    });
  }
  const field = [part, ...(issue?.path ?? []).map(String)].join('.');
  throw new ServerError({
    code: 'invalid_request',
    field,
    message: `${field}: ${issue?.message ?? 'invalid'}.`,
  });
}

/**
 * A JSON body schema that refuses fields it does not name: an object (or each object of a union) that would strip
 * unknown keys refuses them instead, so a misspelt optional field is a 400 rather than silently ignored. A schema
 * that passes unknown keys on on purpose (`z.looseObject`, e.g. what `useChat` posts) is kept as it is.
 */
function closedBody(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) return schema._zod.def.catchall === undefined ? schema.strict() : schema;
  if (schema instanceof z.ZodUnion) {
    return z.union((schema._zod.def.options as z.ZodType[]).map((option) => closedBody(option)));
  }
  return schema;
}

/**
 * The issue to report: for a union, the issue of the member the value was meant for (the one whose literal
 * fields, like `kind`, it matches), so `{ "kind": "mcp" }` is told about `serverId`, not about `kind`.
 */
function mostSpecificIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  const issue = issues[0];
  if (issue?.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  const meant = issue.errors.filter((branch) => !branch.some((inner) => inner.code === 'invalid_value'));
  const chosen = meant.length === 1 ? meant[0] : undefined;
  const inner = chosen === undefined ? undefined : mostSpecificIssue(chosen);
  if (inner !== undefined) return { ...inner, path: [...issue.path, ...inner.path] };
  // No member was meant: when each refused the same field's value (a `kind`, a `transport`), name that field and
  // every value the members take.
  const literals = issue.errors.map((branch) => branch.find((inner) => inner.code === 'invalid_value'));
  const at = literals[0]?.path.join('.');
  if (literals.every((literal) => literal !== undefined && literal.path.join('.') === at) && literals[0]) {
    const values = literals.flatMap((literal) => (literal?.code === 'invalid_value' ? literal.values : []));
    return {
      ...literals[0],
      path: [...issue.path, ...literals[0].path],
      message: `expected one of ${values.map((value) => JSON.stringify(value)).join(', ')}`,
    } as z.core.$ZodIssue;
  }
  return issue;
}

/** The field names of the object at `path` in `schema` (empty when it is not a plain object). */
function fieldsOf(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    current =
      current instanceof z.ZodObject ? (current.shape as Record<string, z.ZodType>)[String(key)] : undefined;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

async function readJson(context: Context): Promise<unknown> {
  const type = context.req.header('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new ServerError({
      code: 'unsupported_media_type',
      field: 'header.content-type',
      message: 'header.content-type: the body must be application/json.',
    });
  }
  const text = await context.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new ServerError({ code: 'invalid_request', field: 'body', message: 'body: not valid JSON.' });
  }
  // A NUL character is no text's and PostgreSQL refuses it in a text column: refused here, naming where it is,
  // rather than failing the write. Only a body that escapes one can hold one (a raw NUL is not valid JSON).
  if (text.includes('\\u0000')) {
    const field = nulPath(value, 'body');
    if (field !== undefined) {
      throw new ServerError({
        code: 'invalid_request',
        field,
        message: `${field}: contains a NUL character (\\u0000), which no field accepts.`,
      });
    }
  }
  return value;
}

/**
 * Where the first string holding a NUL character is in a parsed JSON value (keys count), if one does. Walked with
 * a stack of its own and parent links, not recursion and copied paths: a body may nest as deep as its size allows.
 */
function nulPath(value: unknown, root: string): string | undefined {
  interface At {
    readonly key: string;
    readonly parent: At | undefined;
  }
  const joined = (at: At): string => {
    const keys: string[] = [];
    for (let step: At | undefined = at; step; step = step.parent) keys.push(step.key);
    return keys.reverse().join('.');
  };
  const pending: [unknown, At][] = [[value, { key: root, parent: undefined }]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, at] = next;
    if (typeof current === 'string') {
      if (current.includes('\0')) return joined(at);
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, inner] of Object.entries(current)) {
        const child = { key, parent: at };
        if (key.includes('\0')) return joined(child);
        pending.push([inner, child]);
      }
    }
  }
  return undefined;
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): unknown[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const json = jsonSchemaOf(field, 'input');
    const description = typeof json.description === 'string' ? json.description : undefined;
    return {
      name,
      in: location,
      required: location === 'path' || !field.safeParse(undefined).success,
      ...omitUndefined({ description: description || undefined }),
      schema: json,
    };
  });
}
