import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { ApiKeyScope, Principal } from './principal.ts';
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
  readonly handler: Handler<z.ZodType, z.ZodType, z.ZodType>;
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
    this.#routes.push({
      definition: definition as unknown as RouteDefinition,
      handler: handler as unknown as Handler<z.ZodType, z.ZodType, z.ZodType>,
    });
  }

  /** Every route, in the order added. */
  get definitions(): readonly RouteDefinition[] {
    return this.#routes.map((route) => route.definition);
  }

  /** Registers every route on `app`, each checked by `guard` before its inputs are read. */
  mount(app: Hono, guard: RouteGuard): void {
    for (const { definition, handler } of this.#routes) {
      const honoPath = definition.path.replace(/\{([^}]+)\}/g, ':$1');
      app.on(definition.method.toUpperCase(), honoPath, async (context) => {
        const principal = await guard(context, definition.access);
        const params = parseInput(definition.params, context.req.param(), 'path');
        const query = parseInput(definition.query, context.req.query(), 'query');
        const body =
          definition.body === undefined
            ? undefined
            : parseInput(definition.body, await readJson(context), 'body');
        return handler({ params, query, body, principal: principal as Principal, context });
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
  const issue = parsed.error.issues[0];
  const field = [part, ...(issue?.path ?? []).map(String)].join('.');
  throw new ServerError({
    code: 'invalid_request',
    field,
    message: `${field}: ${issue?.message ?? 'invalid'}.`,
  });
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
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ServerError({ code: 'invalid_request', field: 'body', message: 'body: not valid JSON.' });
  }
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
      ...(description ? { description } : {}),
      schema: json,
    };
  });
}
