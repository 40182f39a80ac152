import { isPlainObject } from './is-plain-object.ts';
import type { JsonSchema } from './tool-definition.ts';

type SchemaNode = Readonly<Record<string, unknown>>;

/**
 * A correct example of a tool's arguments for the model's corrective message ("Call it like this: …"): required
 * properties only, valid against the schema's types, enums and bounds, so the model can send it back as it is.
 * Values the schema gives are preferred (`const`, the first `enum` value, `examples`, `default`) over placeholders:
 * `<description>` for a string with a short description, else `...`; 1 for a number, or its bound nearest 1. One owner for
 * every kind of tool (defined in code, from an OpenAPI operation).
 */
export function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const value = exampleValue(schema, 0);
  return isPlainObject(value) ? value : {};
}

function exampleValue(schema: unknown, depth: number): unknown {
  if (!isPlainObject(schema)) return '...';
  const node: SchemaNode = schema;
  const type = typeOf(node);
  const given = givenValue(node, type);
  if (given !== undefined) return given.value;
  const alternatives = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined;
  if (alternatives !== undefined && alternatives.length > 0) {
    // Satisfy the first alternative that is not `null`; an object that also has its own properties gets both.
    const first =
      alternatives.find((option) => !isPlainObject(option) || option.type !== 'null') ?? alternatives[0];
    const alternative = exampleValue(first, depth);
    if (node.type === undefined) return alternative;
    const own = exampleValue({ ...node, anyOf: undefined, oneOf: undefined }, depth);
    return isPlainObject(own) && isPlainObject(alternative) ? { ...own, ...alternative } : alternative;
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    const parts = node.allOf.map((part) => exampleValue(part, depth));
    return parts.every(isPlainObject) ? Object.assign({}, ...parts) : parts[0];
  }
  // A schema is a finite tree (a model-facing one had its cycles cut when it was made); the cap is only a guard.
  if (depth > 32) return type === 'array' ? [] : type === 'object' ? {} : '...';
  switch (type) {
    case 'string':
      return typeof node.description === 'string' && node.description.length <= 40
        ? `<${node.description}>`
        : '...';
    case 'integer':
    case 'number':
      return exampleNumber(node);
    case 'boolean':
      return true;
    case 'array': {
      const count = Math.min(Math.max(typeof node.minItems === 'number' ? node.minItems : 1, 1), 5);
      return Array.from({ length: count }, () => exampleValue(node.items, depth + 1));
    }
    case 'object':
      return exampleObject(node, depth);
    default:
      return node.properties ? exampleObject(node, depth) : '...';
  }
}

/** 1 where the bounds allow it (zod's whole numbers carry the safe-integer bounds), else the bound nearest 1. */
function exampleNumber(node: SchemaNode): number {
  const bound = (inclusive: unknown, exclusive: unknown, step: number) =>
    typeof inclusive === 'number' ? inclusive : typeof exclusive === 'number' ? exclusive + step : undefined;
  const low = bound(node.minimum, node.exclusiveMinimum, 1);
  const high = bound(node.maximum, node.exclusiveMaximum, -1);
  if ((low === undefined || low <= 1) && (high === undefined || high >= 1)) return 1;
  return low !== undefined && low > 1 ? low : (high ?? 1);
}

/** The node's type; of a list of types (`["string", "null"]`), the first that is not `null`. */
function typeOf(node: SchemaNode): unknown {
  return Array.isArray(node.type) ? node.type.find((entry) => entry !== 'null') : node.type;
}

/** A value the schema itself gives: `const`, the first `enum` value, then `examples` or `default` of its type. */
function givenValue(node: SchemaNode, type: unknown): { readonly value: unknown } | undefined {
  if (node.const !== undefined) return { value: node.const };
  if (Array.isArray(node.enum) && node.enum.length > 0) return { value: node.enum[0] };
  // A document's examples and defaults are not always of their own type: only one that is is shown.
  const candidates = [Array.isArray(node.examples) ? node.examples[0] : undefined, node.default];
  const fitting = candidates.find(
    (value) => value !== undefined && (type === undefined || isOfType(value, type)),
  );
  return fitting === undefined ? undefined : { value: fitting };
}

function isOfType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    default:
      return typeof value === type;
  }
}

/** Its required properties; with none required, one (not at the top level): an empty object teaches nothing. */
function exampleObject(node: SchemaNode, depth: number): Record<string, unknown> {
  const properties = isPlainObject(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required : [];
  const shown = required.length > 0 || depth === 0 ? required : Object.keys(properties).slice(0, 1);
  const result: Record<string, unknown> = {};
  for (const name of shown) {
    if (typeof name === 'string' && name in properties)
      result[name] = exampleValue(properties[name], depth + 1);
  }
  return result;
}
