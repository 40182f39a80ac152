import { z } from 'zod';
import type { RouteDefinition } from './route-registry.ts';

/**
 * The check that a route answers only what its definition declares: a 2xx status it lists, and a JSON body its
 * schema accepts with no field the schema does not name. On under tests (it parses every JSON answer twice), so a
 * route whose answer drifted from `@toolbus/api-schema` fails the route's own tests, not a client in the field.
 * A mismatch is answered 500 with what is wrong, in place of the answer.
 */
export async function checkedResponse(definition: RouteDefinition, response: Response): Promise<Response> {
  if (response.status < 200 || response.status >= 300) return response;
  const route = `${definition.method.toUpperCase()} ${definition.path}`;
  const declared = definition.responses[response.status];
  if (declared === undefined) {
    return mismatch(`${route} answered ${response.status}, which its definition does not declare.`);
  }
  const type = response.headers.get('content-type') ?? '';
  if (declared.schema === undefined || !type.includes('application/json')) return response;
  const body = (await response.clone().json()) as unknown;
  const parsed = closedDeep(declared.schema).safeParse(body);
  if (parsed.success) return response;
  const issue = parsed.error.issues[0];
  const at = ['body', ...(issue?.path ?? []).map(String)].join('.');
  const what =
    issue?.code === 'unrecognized_keys' ? `undeclared field(s) ${issue.keys.join(', ')}` : issue?.message;
  return mismatch(
    `${route} ${response.status}: ${at}: ${what ?? 'invalid'} (not the declared response shape).`,
  );
}

function mismatch(message: string): Response {
  return Response.json({ error: { code: 'response_not_declared', message } }, { status: 500 });
}

/**
 * The schema with every plain object closed, at any depth: an answer's field the schema does not name is an
 * error here, where parsing would silently drop it. Objects declared open on purpose (`z.looseObject`) stay open.
 */
function closedDeep(schema: z.ZodType): z.ZodType {
  let closed = closedSchemas.get(schema);
  if (closed === undefined) {
    closed = closeSchema(schema);
    closedSchemas.set(schema, closed);
  }
  return closed;
}

const closedSchemas = new WeakMap<z.ZodType, z.ZodType>();

function closeSchema(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    if (schema._zod.def.catchall !== undefined) return schema;
    const shape = schema.shape as Record<string, z.ZodType>;
    return z.strictObject(
      Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, closedDeep(field)])),
    );
  }
  if (schema instanceof z.ZodArray) return z.array(closedDeep(schema.element as z.ZodType));
  if (schema instanceof z.ZodOptional) return closedDeep(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodNullable) return closedDeep(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodUnion) {
    return z.union((schema._zod.def.options as z.ZodType[]).map((option) => closedDeep(option)));
  }
  if (schema instanceof z.ZodRecord) {
    return z.record(
      schema._zod.def.keyType as z.ZodString,
      closedDeep(schema._zod.def.valueType as z.ZodType),
    );
  }
  return schema;
}
