import type { ElicitationField, ElicitationSchema, ElicitationValue } from './elicitation.ts';
import { isPlainObject } from './is-plain-object.ts';

/** A form answer checked against its requested schema: the content to send (defaults applied), or what is wrong. */
export type CheckedElicitationContent =
  | { readonly ok: true; readonly content: Readonly<Record<string, ElicitationValue>> }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Longest string a form field may carry, whatever the schema says (the answer travels through every replica). */
const maxStringChars = 10_000;

/**
 * Checks a form elicitation's content against the schema the server requested, after filling in the schema's
 * defaults for fields left out: the server gets only content its schema accepts, and the person answering gets
 * every problem at once, each naming its field. Fields the schema does not define are refused, not passed on.
 */
export function checkElicitationContent(
  schema: ElicitationSchema,
  content: unknown,
): CheckedElicitationContent {
  if (content !== undefined && !isPlainObject(content)) {
    return { ok: false, problems: ['content must be an object of field values'] };
  }
  const given = (content ?? {}) as Record<string, unknown>;
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const problems: string[] = [];
  const out: Record<string, ElicitationValue> = {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(properties, name)) problems.push(`${name}: the form has no such field`);
  }
  for (const [name, field] of Object.entries(properties)) {
    const value = given[name] ?? field.default;
    if (value === undefined || value === null) {
      if (schema.required?.includes(name)) problems.push(`${name}: required`);
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem !== undefined) problems.push(`${name}: ${problem}`);
    else out[name] = value as ElicitationValue;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, content: out };
}

/** The allowed values of an enum field (`enum`, or `oneOf` of consts), or undefined when it is not one. */
export function elicitationChoices(field: ElicitationField): readonly string[] | undefined {
  if (Array.isArray(field.enum)) return field.enum;
  if (Array.isArray(field.oneOf)) return field.oneOf.map((option) => option.const);
  return undefined;
}

/** The allowed items of a multi-select field, or undefined. */
export function elicitationItemChoices(field: ElicitationField): readonly string[] | undefined {
  if (Array.isArray(field.items?.enum)) return field.items.enum;
  if (Array.isArray(field.items?.anyOf)) return field.items.anyOf.map((option) => option.const);
  return undefined;
}

function fieldProblem(field: ElicitationField, value: unknown): string | undefined {
  const type = field.type ?? (elicitationChoices(field) ? 'string' : undefined);
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (type === 'integer' && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
        return 'must be a list of choices';
      const choices = elicitationItemChoices(field);
      const wrong = choices && value.find((item) => !choices.includes(item));
      if (wrong !== undefined) return `"${wrong}" is not one of: ${choices?.join(', ')}`;
      if (field.minItems !== undefined && value.length < field.minItems)
        return `choose at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `choose at most ${field.maxItems}`;
      return undefined;
    }
    case 'string':
      return stringProblem(field, value);
    default:
      return 'the server asked for a kind of value this form cannot hold';
  }
}

function stringProblem(field: ElicitationField, value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be text';
  const choices = elicitationChoices(field);
  if (choices !== undefined && !choices.includes(value)) return `must be one of: ${choices.join(', ')}`;
  if (value.length > maxStringChars) return `must be at most ${maxStringChars} characters`;
  if (field.minLength !== undefined && value.length < field.minLength)
    return `must be at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && value.length > field.maxLength)
    return `must be at most ${field.maxLength} characters`;
  if (field.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(value)) return 'must be an email address';
  if (field.format === 'uri' && !URL.canParse(value)) return 'must be a URL';
  if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'must be a date (YYYY-MM-DD)';
  if (field.format === 'date-time' && Number.isNaN(Date.parse(value))) return 'must be a date and time';
  return undefined;
}
