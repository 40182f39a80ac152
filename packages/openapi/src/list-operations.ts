import { omitUndefined } from '@toolbus/spec';
import type { ParsedOpenApiDocument } from './parse-openapi-document.ts';

/** Where a parameter goes in the request. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** A parameter in one shape for Swagger 2.0 and OpenAPI 3.x. */
export interface OperationParameter {
  readonly name: string;
  readonly location: ParameterLocation;
  readonly required: boolean;
  readonly description?: string;
  /** The value's schema (OpenAPI `schema`, the schema of a `content` entry, or Swagger's inline type). */
  readonly schema: unknown;
  /** OpenAPI 3 `style` / `explode`, or Swagger 2 `collectionFormat`, for arrays and objects. */
  readonly style?: string;
  readonly explode?: boolean;
  readonly collectionFormat?: string;
  /** OpenAPI 3 `content` parameters are sent as JSON text. */
  readonly serializeAsJson: boolean;
}

/** The request body of an operation, in the media type we will send. */
export interface OperationBody {
  readonly mediaType: string;
  readonly schema: unknown;
  readonly required: boolean;
  readonly description?: string;
}

/** One operation of the document, normalised. */
export interface OpenApiOperation {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly deprecated: boolean;
  readonly parameters: readonly OperationParameter[];
  readonly body?: OperationBody;
  /** The server URL the document gives for this operation (variables filled with defaults), if any. */
  readonly serverUrl?: string;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type JsonObject = Record<string, unknown>;

/**
 * Every operation of a parsed document, in document order, with path-level parameters merged into each
 * operation (an operation's own parameter wins over a path-level one with the same name and location).
 */
export function listOperations(parsed: ParsedOpenApiDocument): OpenApiOperation[] {
  const document = parsed.document as JsonObject;
  const swagger = parsed.specification === 'swagger-2.0';
  const paths = asObject(document.paths);
  const operations: OpenApiOperation[] = [];
  for (const [path, pathItemValue] of Object.entries(paths)) {
    const pathItem = asObject(pathItemValue);
    for (const method of methods) {
      const operation = pathItem[method];
      if (typeof operation !== 'object' || operation === null) continue;
      const op = operation as JsonObject;
      const rawParameters = mergeParameters(asArray(pathItem.parameters), asArray(op.parameters));
      const parameters: OperationParameter[] = [];
      let body: OperationBody | undefined;
      const formFields: JsonObject[] = [];
      for (const parameter of rawParameters) {
        const location = parameter.in;
        if (swagger && location === 'body') {
          body = {
            mediaType:
              pickMediaType(asStringArray(op.consumes ?? document.consumes), 'application/json') ??
              'application/json',
            schema: parameter.schema ?? {},
            required: parameter.required === true,
            ...optionalString('description', parameter.description),
          };
        } else if (swagger && location === 'formData') {
          formFields.push(parameter);
        } else if (
          location === 'path' ||
          location === 'query' ||
          location === 'header' ||
          location === 'cookie'
        ) {
          parameters.push(normaliseParameter(parameter, location, swagger));
        }
      }
      if (formFields.length > 0)
        body = swaggerFormBody(formFields, asStringArray(op.consumes ?? document.consumes));
      if (!swagger) body = openApiBody(op.requestBody);
      const serverUrl = swagger ? swaggerServerUrl(document) : openApiServerUrl(op, pathItem, document);
      operations.push({
        method,
        path,
        ...optionalString('operationId', op.operationId),
        ...optionalString('summary', op.summary),
        ...optionalString('description', op.description),
        deprecated: op.deprecated === true,
        parameters,
        ...omitUndefined({ body, serverUrl }),
      });
    }
  }
  return operations;
}

function mergeParameters(pathLevel: unknown[], operationLevel: unknown[]): JsonObject[] {
  const merged = new Map<string, JsonObject>();
  for (const parameter of [...pathLevel, ...operationLevel]) {
    if (typeof parameter !== 'object' || parameter === null) continue;
    const value = parameter as JsonObject;
    if (typeof value.name !== 'string' || typeof value.in !== 'string') continue;
    merged.set(`${value.in}:${value.name}`, value);
  }
  return [...merged.values()];
}

const swaggerSchemaKeys = [
  'type',
  'format',
  'items',
  'enum',
  'default',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
];

function normaliseParameter(
  parameter: JsonObject,
  location: ParameterLocation,
  swagger: boolean,
): OperationParameter {
  let schema: unknown = parameter.schema;
  let serializeAsJson = false;
  if (swagger) {
    const inline: JsonObject = {};
    for (const key of swaggerSchemaKeys) if (parameter[key] !== undefined) inline[key] = parameter[key];
    schema = inline;
  } else if (schema === undefined && typeof parameter.content === 'object' && parameter.content !== null) {
    const first = Object.values(parameter.content as JsonObject)[0];
    schema = (first as JsonObject | undefined)?.schema ?? {};
    serializeAsJson = true;
  }
  return {
    name: parameter.name as string,
    location,
    // Path parameters are always required, whatever the document says.
    required: location === 'path' || parameter.required === true,
    ...optionalString('description', parameter.description),
    schema: schema ?? {},
    ...optionalString('style', parameter.style),
    ...(typeof parameter.explode === 'boolean' ? { explode: parameter.explode } : {}),
    ...optionalString('collectionFormat', parameter.collectionFormat),
    serializeAsJson,
  };
}

function swaggerFormBody(fields: JsonObject[], consumes: string[]): OperationBody {
  const properties: JsonObject = {};
  const required: string[] = [];
  let hasFile = false;
  for (const field of fields) {
    const name = field.name as string;
    const schema: JsonObject = {};
    for (const key of swaggerSchemaKeys) if (field[key] !== undefined) schema[key] = field[key];
    if (typeof field.description === 'string') schema.description = field.description;
    if (field.type === 'file') hasFile = true;
    properties[name] = schema;
    if (field.required === true) required.push(name);
  }
  const multipart = hasFile || consumes.includes('multipart/form-data');
  return {
    mediaType: multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded',
    schema: { type: 'object', properties, required },
    required: required.length > 0,
  };
}

function openApiBody(requestBody: unknown): OperationBody | undefined {
  if (typeof requestBody !== 'object' || requestBody === null) return undefined;
  const body = requestBody as JsonObject;
  const content = asObject(body.content);
  const mediaType = pickMediaType(Object.keys(content), undefined);
  if (mediaType === undefined) return undefined;
  const entry = asObject(content[mediaType]);
  return {
    mediaType,
    schema: entry.schema ?? {},
    required: body.required === true,
    ...optionalString('description', body.description),
  };
}

/**
 * The media type we send: JSON first (what models write best), then forms, then text; anything else is sent
 * as the text the model gives.
 */
function pickMediaType(mediaTypes: string[], fallback: string | undefined): string | undefined {
  const ranked = [
    (type: string) => /^application\/json\b/i.test(type),
    (type: string) => /\+json\b/i.test(type) || /\/json\b/i.test(type),
    (type: string) => /^application\/x-www-form-urlencoded\b/i.test(type),
    (type: string) => /^multipart\/form-data\b/i.test(type),
    (type: string) => /^text\//i.test(type),
    (type: string) => !type.includes('*'),
  ];
  for (const matches of ranked) {
    const found = mediaTypes.find(matches);
    if (found !== undefined) return found;
  }
  return mediaTypes[0] === undefined ? fallback : 'application/octet-stream';
}

function openApiServerUrl(
  operation: JsonObject,
  pathItem: JsonObject,
  document: JsonObject,
): string | undefined {
  for (const servers of [operation.servers, pathItem.servers, document.servers]) {
    const first = asArray(servers)[0];
    if (typeof first !== 'object' || first === null) continue;
    const server = first as JsonObject;
    if (typeof server.url !== 'string') continue;
    const variables = asObject(server.variables);
    return server.url.replace(/\{([^}]+)\}/g, (match, name: string) => {
      const variable = asObject(variables[name]);
      return variable.default === undefined ? match : String(variable.default);
    });
  }
  return undefined;
}

function swaggerServerUrl(document: JsonObject): string | undefined {
  const basePath = typeof document.basePath === 'string' ? document.basePath : '';
  if (typeof document.host !== 'string') return basePath === '' ? undefined : basePath;
  const schemes = asStringArray(document.schemes);
  const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
  return `${scheme}://${document.host}${basePath}`;
}

function asObject(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asStringArray(value: unknown): string[] {
  return asArray(value).filter((entry): entry is string => typeof entry === 'string');
}

function optionalString<Key extends string>(key: Key, value: unknown): { [K in Key]?: string } {
  return (typeof value === 'string' && value.trim() !== '' ? { [key]: value } : {}) as {
    [K in Key]?: string;
  };
}
