/** Limits for {@link toModelSchema}. */
export interface ModelSchemaLimits {
  /** Nesting depth below the root after which a schema becomes `{}` (any value). */
  readonly maxDepth: number;
  /** Schema nodes one conversion may emit; past it, the rest become `{}`. Keeps huge APIs' tools small. */
  readonly maxNodes: number;
  /** Longest description kept, in characters. */
  readonly maxDescriptionChars: number;
}

/** The limits used for every tool: deep enough for real request bodies, small enough for a model's context. */
export const defaultModelSchemaLimits: ModelSchemaLimits = {
  maxDepth: 8,
  maxNodes: 2000,
  maxDescriptionChars: 300,
};

type JsonObject = Record<string, unknown>;

interface ConversionState {
  readonly limits: ModelSchemaLimits;
  nodes: number;
}

const simpleTypes = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const maxEnumValues = 200;
const maxAlternatives = 12;

/**
 * Converts a dereferenced OpenAPI/Swagger schema into JSON Schema every major model provider accepts: a small,
 * conservative vocabulary (`type`, `properties`, `required`, `items`, `enum`, `anyOf`, `description`, numeric and
 * item-count bounds). `allOf` is merged; `oneOf` becomes `anyOf`; OpenAPI-only keywords (`nullable`,
 * `discriminator`, `xml`, `example`, `readOnly` properties in requests) are dropped; `format`, `default` and
 * `pattern` move into the description (some providers reject them as keywords). Cycles and anything past the
 * depth or size limits become `{}` (any value), so recursive schemas cannot hang the conversion or explode the
 * result. Objects always carry `properties`; arrays always carry `items`; no `$ref` survives.
 */
export function toModelSchema(
  schema: unknown,
  limits: ModelSchemaLimits = defaultModelSchemaLimits,
): JsonObject {
  return convert(schema, { limits, nodes: 0 }, 0, new Set());
}

function convert(schema: unknown, state: ConversionState, depth: number, ancestors: Set<object>): JsonObject {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
  if (ancestors.has(schema) || depth > state.limits.maxDepth || state.nodes >= state.limits.maxNodes)
    return {};
  state.nodes += 1;
  ancestors.add(schema);
  try {
    const node = mergeAllOf(schema as JsonObject, new Set());
    if (typeof node.$ref === 'string') return {};
    const result: JsonObject = {};
    const type = normaliseType(node);
    const hints: string[] = [];

    const alternatives = [
      ...(Array.isArray(node.oneOf) ? node.oneOf : []),
      ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ].filter((option) => !isNullSchema(option));
    if (alternatives.length > 0) {
      const converted = alternatives
        .slice(0, maxAlternatives)
        .map((option) => convert(option, state, depth + 1, ancestors));
      const distinct = dedupe(converted);
      if (distinct.some(acceptsAnything)) {
        // One alternative accepts anything, so the union does too.
      } else if (distinct.length === 1 && type === undefined && !hasProperties(node)) {
        Object.assign(result, distinct[0]);
      } else if (distinct.length > 0) {
        result.anyOf = distinct;
      }
    }

    if (Array.isArray(type)) {
      result.anyOf = type.map((entry) =>
        convert({ ...node, type: entry, oneOf: undefined, anyOf: undefined }, state, depth + 1, ancestors),
      );
    } else if (
      type === 'object' ||
      (type === undefined && hasProperties(node) && result.anyOf === undefined)
    ) {
      result.type = 'object';
      const properties: JsonObject = {};
      const source = node.properties;
      if (typeof source === 'object' && source !== null) {
        for (const [name, propertySchema] of Object.entries(source as JsonObject)) {
          if (isReadOnly(propertySchema)) continue;
          properties[name] = convert(propertySchema, state, depth + 1, ancestors);
        }
      }
      result.properties = properties;
      const required = Array.isArray(node.required)
        ? [
            ...new Set(
              node.required.filter((name): name is string => typeof name === 'string' && name in properties),
            ),
          ]
        : [];
      if (required.length > 0) result.required = required;
    } else if (type === 'array') {
      result.type = 'array';
      result.items = convert(node.items, state, depth + 1, ancestors);
      copyNumber(node, result, 'minItems');
      copyNumber(node, result, 'maxItems');
    } else if (type !== undefined) {
      result.type = type;
      if (type === 'integer' || type === 'number') {
        copyNumber(node, result, 'minimum');
        copyNumber(node, result, 'maximum');
      }
      if (node.type === 'file') hints.push('File contents as text.');
    }

    const values = enumValues(node);
    if (values !== undefined && result.anyOf === undefined) result.enum = values;
    if (typeof node.format === 'string' && node.format !== '' && result.enum === undefined) {
      hints.push(`Format: ${node.format}.`);
    }
    if (typeof node.pattern === 'string' && node.pattern.length <= 100)
      hints.push(`Pattern: ${node.pattern}`);
    if (isPrimitive(node.default) && node.default !== null)
      hints.push(`Default: ${JSON.stringify(node.default)}.`);
    const description = describe(node, hints, state.limits.maxDescriptionChars);
    if (description !== undefined) result.description = description;
    return result;
  } finally {
    ancestors.delete(schema);
  }
}

/** Folds `allOf` members into one schema (properties and required merged, other keywords first-wins). */
function mergeAllOf(node: JsonObject, seen: Set<object>): JsonObject {
  if (!Array.isArray(node.allOf) || seen.has(node)) return node;
  seen.add(node);
  const { allOf, ...rest } = node;
  const merged: JsonObject = { ...rest };
  const properties: JsonObject = { ...((rest.properties as JsonObject | undefined) ?? {}) };
  const required = new Set<unknown>(Array.isArray(rest.required) ? rest.required : []);
  for (const member of allOf as unknown[]) {
    if (typeof member !== 'object' || member === null) continue;
    const part = mergeAllOf(member as JsonObject, seen);
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const [name, propertySchema] of Object.entries(value as JsonObject)) {
          if (!(name in properties)) properties[name] = propertySchema;
        }
      } else if (key === 'required' && Array.isArray(value)) {
        for (const name of value) required.add(name);
      } else if (!(key in merged)) {
        merged[key] = value;
      }
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function normaliseType(node: JsonObject): string | string[] | undefined {
  const raw = node.type;
  if (raw === 'file') return 'string';
  if (typeof raw === 'string') return simpleTypes.has(raw) && raw !== 'null' ? raw : undefined;
  if (Array.isArray(raw)) {
    const types = [
      ...new Set(raw.filter((entry): entry is string => typeof entry === 'string' && simpleTypes.has(entry))),
    ].filter((entry) => entry !== 'null');
    if (types.length === 0) return undefined;
    return types.length === 1 ? types[0] : types;
  }
  return undefined;
}

function enumValues(node: JsonObject): unknown[] | undefined {
  const source = Array.isArray(node.enum) ? node.enum : isPrimitive(node.const) ? [node.const] : undefined;
  if (source === undefined) return undefined;
  const values = source.filter((value) => isPrimitive(value) && value !== null).slice(0, maxEnumValues);
  return values.length > 0 ? values : undefined;
}

function describe(node: JsonObject, hints: string[], maxChars: number): string | undefined {
  const base =
    typeof node.description === 'string'
      ? node.description.trim()
      : typeof node.title === 'string'
        ? node.title.trim()
        : '';
  const text = [base, ...hints].filter((part) => part !== '').join(' ');
  if (text === '') return undefined;
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** A converted schema that constrains nothing (at most a description): a union containing it accepts anything. */
function acceptsAnything(schema: JsonObject): boolean {
  return Object.keys(schema).every((key) => key === 'description');
}

function copyNumber(from: JsonObject, to: JsonObject, key: string): void {
  const value = from[key];
  if (typeof value === 'number' && Number.isFinite(value)) to[key] = value;
}

function hasProperties(node: JsonObject): boolean {
  return typeof node.properties === 'object' && node.properties !== null;
}

function isReadOnly(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as JsonObject).readOnly === true;
}

function isNullSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as JsonObject).type === 'null';
}

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function dedupe(schemas: JsonObject[]): JsonObject[] {
  const seen = new Set<string>();
  return schemas.filter((schema) => {
    const key = JSON.stringify(schema);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
