import { type JsonSchema, omitUndefined } from '@toolbus/spec';
import { normalizeInputSchema } from './normalize-input-schema.ts';

/** An input schema as a provider will take it, or why it cannot be made into one. */
export type ProviderInputSchema =
  | { readonly ok: true; readonly schema: JsonSchema }
  | { readonly ok: false; readonly reason: string };

/** Deepest `$ref` chain followed (a hostile schema could nest forever). */
const maxDepth = 32;

class Unusable extends Error {}

/**
 * Makes an MCP input schema into one OpenAI and Anthropic accept: a plain object schema at the root without `$ref`.
 * The 2026-07-28 revision allows root-level `allOf` / `anyOf` / `oneOf` / `if`, and `$ref`, which they refuse.
 * - local `$ref`s (`#/$defs/…`, `#/definitions/…`) are inlined, and the definitions dropped;
 * - a root `allOf` of object schemas is merged (properties and required lists joined);
 * - a root `anyOf` / `oneOf` of object schemas becomes one object holding every branch's properties, required only
 *   where every branch requires them; `if` / `then` / `else` and `not` at the root are loosened the same way;
 * - what cannot be normalised (a recursive or remote `$ref`, a root that is not an object, one property defined two
 *   different ways) is reported with the reason, so the tool is set aside instead of failing the request.
 * The looser schema only guides the model: the server still validates the arguments against its own schema.
 */
export function providerInputSchema(schema: JsonSchema | undefined): ProviderInputSchema {
  try {
    const base = normalizeInputSchema(schema);
    const inlined = inlineRefs(base, base, [], 0) as JsonSchema;
    const { $defs: _defs, definitions: _definitions, $schema: _schema, ...rest } = inlined;
    const flat = flattenRoot(rest);
    if (flat.type !== 'object') {
      throw new Unusable(`its root is ${JSON.stringify(flat.type ?? 'untyped')}, not an object`);
    }
    return { ok: true, schema: normalizeInputSchema(flat) };
  } catch (error) {
    if (error instanceof Unusable)
      return { ok: false, reason: `its input schema cannot be offered: ${error.message}` };
    throw error;
  }
}

function inlineRefs(node: unknown, root: JsonSchema, seen: readonly string[], depth: number): unknown {
  if (depth > maxDepth) throw new Unusable('it nests deeper than 32 levels');
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, root, seen, depth + 1));
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const ref = record.$ref;
    if (seen.includes(ref)) throw new Unusable(`$ref "${ref}" is recursive`);
    const target = resolveLocalRef(root, ref);
    const { $ref: _ref, ...siblings } = record;
    const resolved = inlineRefs(target, root, [...seen, ref], depth + 1) as Record<string, unknown>;
    return inlineRefs({ ...resolved, ...siblings }, root, [...seen, ref], depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // Definitions are inlined where used; walking them would only find their own (possibly recursive) refs.
    out[key] = key === '$defs' || key === 'definitions' ? value : inlineRefs(value, root, seen, depth + 1);
  }
  return out;
}

function resolveLocalRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Unusable(`$ref "${ref}" points outside the schema`);
  if (ref === '#') throw new Unusable('$ref "#" is recursive');
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof current !== 'object' || current === null || !(key in current)) {
      throw new Unusable(`$ref "${ref}" names nothing in the schema`);
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

type ObjectParts = { properties: Record<string, unknown>; required: string[] };

/** Folds root-level combinators into one object schema (after refs were inlined). */
function flattenRoot(schema: Record<string, unknown>): JsonSchema {
  const {
    allOf,
    anyOf,
    oneOf,
    // `if` is only the condition and `not` only forbids: dropping them loosens, never breaks, the schema.
    if: _if,
    then: thenSchema,
    else: elseSchema,
    not: _not,
    ...rest
  } = schema;
  let parts: ObjectParts = partsOf(rest, 'the root');
  let typed = rest.type;
  if (Array.isArray(allOf)) {
    for (const member of allOf) {
      const flat = flattenRoot(asRecord(member, 'an allOf member'));
      parts = join(parts, partsOf(flat, 'an allOf member'), 'all');
      typed ??= flat.type;
    }
  }
  for (const branches of [anyOf, oneOf]) {
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const flats = branches.map((branch) => flattenRoot(asRecord(branch, 'an anyOf/oneOf branch')));
    let union = partsOf(flats[0] ?? {}, 'a branch');
    for (const flat of flats.slice(1)) union = join(union, partsOf(flat, 'a branch'), 'any');
    parts = join(parts, union, 'all');
    typed ??= flats.find((flat) => flat.type !== undefined)?.type;
  }
  for (const part of [thenSchema, elseSchema]) {
    if (part === undefined) continue;
    const flat = flattenRoot(asRecord(part, 'a then/else part'));
    // What a branch adds is optional; what it narrows (a property the root already defines) keeps the root's word.
    for (const [name, definition] of Object.entries(partsOf(flat, 'a then/else part').properties)) {
      if (!(name in parts.properties)) parts.properties[name] = definition;
    }
  }
  if (typed === undefined && Object.keys(parts.properties).length > 0) typed = 'object';
  const { properties: _p, required: _r, ...others } = rest;
  return {
    ...others,
    ...omitUndefined({ type: typed }),
    properties: parts.properties,
    ...(parts.required.length > 0 ? { required: parts.required } : {}),
  } as JsonSchema;
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Unusable(`${what} is not a schema object`);
  }
  return value as Record<string, unknown>;
}

function partsOf(schema: Record<string, unknown>, what: string): ObjectParts {
  if (schema.type !== undefined && schema.type !== 'object') {
    throw new Unusable(`${what} is of type ${JSON.stringify(schema.type)}, not an object`);
  }
  const properties =
    typeof schema.properties === 'object' && schema.properties !== null
      ? { ...(schema.properties as Record<string, unknown>) }
      : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  return { properties, required };
}

/** `all`: both hold (required joined); `any`: either holds (required only where both require). */
function join(left: ObjectParts, right: ObjectParts, mode: 'all' | 'any'): ObjectParts {
  const properties = { ...left.properties };
  for (const [name, definition] of Object.entries(right.properties)) {
    const existing = properties[name];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(definition)) {
      throw new Unusable(`property "${name}" is defined two different ways`);
    }
    properties[name] = definition;
  }
  const required =
    mode === 'all'
      ? [...new Set([...left.required, ...right.required])]
      : left.required.filter((name) => right.required.includes(name));
  return { properties, required };
}
