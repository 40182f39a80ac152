type JsonObject = Record<string, unknown>;

/** One problem with a call's arguments. */
export interface ArgumentProblem {
  /** Where, e.g. `body.tags[0]`; empty for the arguments object itself. */
  readonly path: string;
  readonly message: string;
}

const maxProblems = 20;

/**
 * Checks arguments against the model-facing schema {@link toModelSchema} produced (its small vocabulary: type,
 * properties, required, items, enum, anyOf, numeric and item-count bounds). Unknown top-level arguments are
 * problems (a model that flattens body fields into the top level is told to nest them); unknown nested fields
 * are allowed, as JSON Schema allows them.
 */
export function validateArguments(schema: JsonObject, args: unknown): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return [{ path: '', message: 'the arguments must be a JSON object' }];
  }
  const properties = (schema.properties ?? {}) as JsonObject;
  for (const key of Object.keys(args)) {
    if (!(key in properties)) {
      const hint = 'body' in properties ? ' (request body fields go inside "body")' : '';
      problems.push({
        path: key,
        message: `unknown argument${hint}; valid arguments: ${Object.keys(properties).join(', ') || 'none'}`,
      });
    }
  }
  check(schema, args, '', problems);
  return problems.slice(0, maxProblems);
}

function check(schema: unknown, value: unknown, path: string, problems: ArgumentProblem[]): void {
  if (problems.length >= maxProblems || typeof schema !== 'object' || schema === null) return;
  const node = schema as JsonObject;
  if (Array.isArray(node.anyOf)) {
    const matches = node.anyOf.some((option) => {
      const trial: ArgumentProblem[] = [];
      check(option, value, path, trial);
      return trial.length === 0;
    });
    if (!matches)
      problems.push({
        path,
        message: `does not match any of the allowed shapes (${describeOptions(node.anyOf)})`,
      });
  }
  if (node.type !== undefined && !hasType(value, node.type)) {
    problems.push({ path, message: `expected ${String(node.type)}, got ${typeName(value)}` });
    return;
  }
  if (Array.isArray(node.enum) && !node.enum.some((allowed) => allowed === value)) {
    problems.push({
      path,
      message: `must be one of ${node.enum
        .slice(0, 20)
        .map((entry) => JSON.stringify(entry))
        .join(', ')}`,
    });
  }
  if (typeof value === 'number') {
    if (typeof node.minimum === 'number' && value < node.minimum)
      problems.push({ path, message: `must be >= ${node.minimum}` });
    if (typeof node.maximum === 'number' && value > node.maximum)
      problems.push({ path, message: `must be <= ${node.maximum}` });
  }
  if (Array.isArray(value)) {
    if (typeof node.minItems === 'number' && value.length < node.minItems)
      problems.push({ path, message: `needs at least ${node.minItems} items` });
    if (typeof node.maxItems === 'number' && value.length > node.maxItems)
      problems.push({ path, message: `allows at most ${node.maxItems} items` });
    value.forEach((item, index) => {
      check(node.items, item, `${path}[${index}]`, problems);
    });
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as JsonObject;
    for (const name of Array.isArray(node.required) ? node.required : []) {
      if (typeof name === 'string' && (object[name] === undefined || object[name] === null)) {
        problems.push({ path: join(path, name), message: 'is required' });
      }
    }
    const properties = (node.properties ?? {}) as JsonObject;
    for (const [name, propertySchema] of Object.entries(properties)) {
      if (object[name] !== undefined && object[name] !== null)
        check(propertySchema, object[name], join(path, name), problems);
    }
  }
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return `integer ${value}`;
  return typeof value === 'string' ? `string ${JSON.stringify(value.slice(0, 40))}` : typeof value;
}

function describeOptions(options: unknown[]): string {
  return options
    .slice(0, 5)
    .map((option) => String((option as JsonObject | null)?.type ?? 'object'))
    .join(' | ');
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/**
 * Parameters travel as text, so a model that writes `"42"` for an integer query parameter, or `"true"` for a
 * boolean, meant the number or the boolean: convert such top-level values before validation. Bodies are JSON and
 * are left exactly as written.
 */
export function coerceParameterArguments(
  schema: JsonObject,
  args: Readonly<Record<string, unknown>>,
  parameterProperties: ReadonlySet<string>,
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as JsonObject;
  const result: Record<string, unknown> = { ...args };
  for (const name of parameterProperties) {
    const value = result[name];
    const type = (properties[name] as JsonObject | undefined)?.type;
    if (typeof value !== 'string') continue;
    if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value.trim()))
      result[name] = Number(value);
    else if (type === 'boolean' && (value === 'true' || value === 'false')) result[name] = value === 'true';
  }
  return result;
}
