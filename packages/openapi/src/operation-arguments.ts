import type { JsonSchema } from '@toolbus/spec';
import { FRAMING_HEADERS, omitUndefined } from '@toolbus/spec';
import type { OpenApiOperation, OperationParameter } from './list-operations.ts';
import type { ReservedCredentialNames } from './resolve-auth.ts';
import { type ModelSchemaLimits, toModelSchema } from './to-model-schema.ts';

/** Where one property of the arguments object goes in the request. */
export interface ArgumentBinding {
  /** The property the model fills. */
  readonly property: string;
  readonly parameter: OperationParameter;
}

/** An operation's arguments: the schema the model sees, and how each property maps to the request. */
export interface OperationArguments {
  readonly schema: JsonSchema;
  readonly bindings: readonly ArgumentBinding[];
  /** The property carrying the request body (always `body`), when the operation has one. */
  readonly bodyProperty?: string;
}

/** Headers the transport owns: a model-supplied value would break framing or routing. */
const transportHeaders = new Set([...FRAMING_HEADERS, 'content-type', 'accept-encoding']);

const propertyNamePattern = /^[a-zA-Z0-9_.-]{1,64}$/;

/**
 * The JSON schema of an operation's arguments: one top-level property per path, query and header parameter, and
 * the request body under `body`. The body is never flattened into the top level, on purpose: a body may be an
 * array or a scalar, its field names may collide with parameter names, and a document's next version may add a
 * field that shadows a parameter; one `body` property keeps every call unambiguous. Credential headers and query
 * names, transport headers and cookies are never offered. Parameter names that providers would reject as
 * property keys (`filter[name]`) are sanitised, and collisions get the location as a prefix (`query_id`).
 */
export function operationArguments(options: {
  readonly operation: OpenApiOperation;
  readonly reserved: ReservedCredentialNames;
  readonly limits?: ModelSchemaLimits;
}): OperationArguments {
  const { operation, reserved } = options;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const bindings: ArgumentBinding[] = [];
  const taken = new Set<string>();
  const bodyProperty = operation.body ? 'body' : undefined;
  if (bodyProperty) taken.add(bodyProperty);
  for (const parameter of operation.parameters) {
    if (!offered(parameter, reserved)) continue;
    const property = propertyName(parameter, taken);
    taken.add(property);
    const schema = toModelSchema(parameter.schema, options.limits);
    const description = [parameter.description?.trim(), schema.description].filter(Boolean).join(' ');
    properties[property] = description === '' ? schema : { ...schema, description: cap(description, 500) };
    if (parameter.required) required.push(property);
    bindings.push({ property, parameter });
  }
  if (bodyProperty && operation.body) {
    const bodySchema = bodyModelSchema(operation.body.mediaType, operation.body.schema, options.limits);
    const note = `Request body (${operation.body.mediaType}).`;
    const description = [note, operation.body.description?.trim(), bodySchema.description]
      .filter(Boolean)
      .join(' ');
    properties[bodyProperty] = { ...bodySchema, description: cap(description, 500) };
    if (operation.body.required) required.push(bodyProperty);
  }
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  return { schema, bindings, ...omitUndefined({ bodyProperty }) };
}

function offered(parameter: OperationParameter, reserved: ReservedCredentialNames): boolean {
  if (parameter.location === 'cookie') return false;
  if (parameter.location === 'header') {
    // A name that is not an HTTP token could never be sent.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(parameter.name)) return false;
    const name = parameter.name.toLowerCase();
    return !reserved.headers.has(name) && !transportHeaders.has(name);
  }
  if (parameter.location === 'query') return !reserved.query.has(parameter.name);
  return true;
}

function propertyName(parameter: OperationParameter, taken: ReadonlySet<string>): string {
  let name = propertyNamePattern.test(parameter.name)
    ? parameter.name
    : parameter.name.replace(/[^a-zA-Z0-9_.-]+/g, '_').slice(0, 64) || parameter.location;
  if (taken.has(name)) name = `${parameter.location}_${name}`.slice(0, 64);
  for (let counter = 2; taken.has(name); counter += 1) name = `${name.slice(0, 60)}_${counter}`;
  return name;
}

function bodyModelSchema(
  mediaType: string,
  schema: unknown,
  limits: ModelSchemaLimits | undefined,
): Record<string, unknown> {
  const structured = /json|x-www-form-urlencoded|multipart\/form-data/i.test(mediaType);
  if (!structured) return { type: 'string' };
  return toModelSchema(schema, limits);
}

function cap(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
