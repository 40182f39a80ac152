import type { JsonSchema } from '@toolbus/spec';
import { parseJsonTolerant } from './tolerant-json-parse.ts';

/** Options for {@link coerceParameterValue}. */
export interface CoerceParameterValueOptions {
  /** The parameter's JSON Schema in the tool definition, if the tool declares it. */
  readonly schema: JsonSchema | undefined;
  /** An explicit `string="true|false"` attribute, when the markup carries one. */
  readonly isString?: boolean | undefined;
}

/**
 * Types a parameter value written as text inside XML-like markup. `string="true"` keeps the text; otherwise
 * the tool's schema decides: `string` keeps it, `number`/`integer`/`boolean`/`null` and `array`/`object` are
 * parsed (kept as text if they do not parse). Without a schema type (or with `string="false"`) the text is
 * parsed as JSON when it is JSON, else kept.
 */
export function coerceParameterValue(raw: string, options: CoerceParameterValueOptions): unknown {
  if (options.isString === true) return raw;
  const types = schemaTypes(options.schema);
  if (
    options.isString === undefined &&
    types.size > 0 &&
    types.has('string') &&
    !looksLikeStructure(raw, types)
  ) {
    return raw;
  }
  const trimmed = raw.trim();
  if (types.has('boolean')) {
    if (/^true$/i.test(trimmed)) return true;
    if (/^false$/i.test(trimmed)) return false;
  }
  if ((types.has('number') || types.has('integer')) && trimmed !== '' && Number.isFinite(Number(trimmed))) {
    return Number(trimmed);
  }
  if (types.has('null') && (trimmed === 'null' || trimmed === 'None')) return null;
  if (trimmed === '') return raw;
  const parsed = parseJsonTolerant(trimmed);
  if (!parsed.ok) return raw;
  if (types.size === 0) return parsed.value;
  const parsedType = jsonTypeOf(parsed.value);
  return types.has(parsedType) || (parsedType === 'integer' && types.has('number')) ? parsed.value : raw;
}

function looksLikeStructure(raw: string, types: ReadonlySet<string>): boolean {
  // A union such as ["array", "string"]: parse only when the text is plainly an array or object.
  const first = raw.trim()[0];
  return (types.has('array') && first === '[') || (types.has('object') && first === '{');
}

function schemaTypes(schema: JsonSchema | undefined): Set<string> {
  const types = new Set<string>();
  if (!schema) return types;
  const type = schema.type;
  if (typeof type === 'string') types.add(type);
  else if (Array.isArray(type)) for (const item of type) if (typeof item === 'string') types.add(item);
  if (types.size === 0) {
    if (Array.isArray(schema.enum) && schema.enum.every((item) => typeof item === 'string'))
      types.add('string');
    else if (typeof schema.properties === 'object') types.add('object');
    else if (typeof schema.items === 'object') types.add('array');
  }
  return types;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
