import type { JsonSchema } from '@toolbus/spec';

const maxDepth = 4;

/**
 * A plausible example arguments object for a JSON schema: used in the corrective message a model gets after an
 * invalid call, so it sees the right shape. Required properties only (all when none are marked required);
 * `examples`, `default`, `const` and the first `enum` value are preferred over placeholders.
 */
export function exampleArgumentsFromSchema(schema: JsonSchema): Record<string, unknown> {
  const value = exampleValue(schema, 0);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function exampleValue(schema: unknown, depth: number): unknown {
  if (typeof schema !== 'object' || schema === null) return '...';
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0];
  if (node.default !== undefined) return node.default;
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = node[key];
    if (Array.isArray(options)) {
      const first = options.find((option) => (option as Record<string, unknown>)?.type !== 'null');
      if (first !== undefined) return exampleValue(first, depth);
    }
  }
  const type = Array.isArray(node.type) ? node.type.find((entry) => entry !== 'null') : node.type;
  switch (type) {
    case 'string':
      return typeof node.description === 'string' && node.description.length <= 40
        ? `<${node.description}>`
        : '...';
    case 'integer':
    case 'number':
      return typeof node.minimum === 'number' ? node.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return depth >= maxDepth ? [] : [exampleValue(node.items, depth + 1)];
    case 'object':
      return exampleObject(node, depth);
    default:
      return node.properties ? exampleObject(node, depth) : '...';
  }
}

function exampleObject(node: Record<string, unknown>, depth: number): Record<string, unknown> {
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  if (depth >= maxDepth) return {};
  const required = Array.isArray(node.required) ? (node.required as string[]) : Object.keys(properties);
  const result: Record<string, unknown> = {};
  for (const name of required) {
    if (name in properties) result[name] = exampleValue(properties[name], depth + 1);
  }
  return result;
}
