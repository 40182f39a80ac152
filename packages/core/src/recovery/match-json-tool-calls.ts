import type { ExtractedToolCall } from './extracted-tool-call.ts';
import { isPlainObject, parseToolArguments } from './parse-tool-arguments.ts';
import { stripFunctionsPrefix } from './text-search.ts';
import type { ToolSchemaIndex, ToolSchemaInfo } from './tool-schema-index.ts';

/** Options for {@link matchJsonToolCalls}. */
export interface MatchJsonToolCallsOptions {
  readonly tools: ToolSchemaIndex;
  /**
   * Whether an object holding only arguments may be matched to a tool by its required parameters. True only
   * for a JSON value standing on its own in the text: never for data nested inside other JSON.
   */
  readonly allowBareArguments: boolean;
}

/** Keys that name the tool in a JSON call object. */
export const callNameKeys = ['name', 'tool_name', 'toolName', 'tool', 'function', 'action', 'function_name'];
/** Keys that hold the arguments in a JSON call object. */
export const callArgumentKeys = [
  'arguments',
  'parameters',
  'args',
  'input',
  'action_input',
  'tool_input',
  'params',
  'kwargs',
];
/** Keys that wrap a list of calls (`{"tool_calls": [...]}`). */
export const callWrapperKeys = ['tool_calls', 'tool_call', 'function_call', 'calls', 'tool_uses', 'actions'];
// Keys a call object may carry besides its name when it has no arguments at all (a zero-parameter call).
export const callBookkeepingKeys: ReadonlySet<string> = new Set([
  'id',
  'type',
  'index',
  'call_id',
  'tool_call_id',
]);
const maximumDepth = 8;

/**
 * Reads tool calls out of one parsed JSON value, in the shapes models write: `{name, arguments}` (also
 * `parameters`/`args`/`input`, arguments as a JSON string, Cohere's `tool_name`, LangChain's
 * `action`/`action_input`), the `{"function": {...}}` wrapper (also OpenAI's `{"type": "function", ...}`),
 * `{"tool_calls": [...]}` and other wrappers, arrays of calls, the tool name as the single key, and bare
 * arguments when allowed. The arguments of a matched call are never searched again, so one call is never
 * reported twice. Echoed tool definitions (they carry a `description`, or a JSON Schema as "arguments") are
 * not calls.
 */
export function matchJsonToolCalls(value: unknown, options: MatchJsonToolCallsOptions): ExtractedToolCall[] {
  const calls: ExtractedToolCall[] = [];
  collect(value, options, options.allowBareArguments, 0, calls);
  return calls;
}

function collect(
  value: unknown,
  options: MatchJsonToolCallsOptions,
  allowBare: boolean,
  depth: number,
  calls: ExtractedToolCall[],
): void {
  if (depth > maximumDepth) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, options, false, depth + 1, calls);
    return;
  }
  if (!isPlainObject(value)) return;
  const named = matchNamedCall(value, options.tools);
  if (named !== undefined) {
    if (named !== null) calls.push(named);
    return;
  }
  for (const key of callWrapperKeys) {
    if (key in value) {
      collect(value[key], options, false, depth + 1, calls);
      return;
    }
  }
  // `{"get_weather": {"city": "Oslo"}}`, also with sibling keys beside it (`"id"`, `"type"`, a note): the one key
  // that names a declared tool, with an object (or a JSON string) as its value.
  const keys = Object.keys(value);
  const toolKeys = keys.filter((key) => options.tools.has(key));
  if (toolKeys.length === 1) {
    const tool = options.tools.get(toolKeys[0]!)!;
    const argumentsValue = value[toolKeys[0]!];
    if (isPlainObject(argumentsValue) || (keys.length === 1 && typeof argumentsValue === 'string')) {
      calls.push({ name: tool.name, arguments: parseToolArguments(argumentsValue) });
      return;
    }
  }
  if (allowBare) {
    const bare = matchBareArguments(value, options.tools);
    if (bare) calls.push(bare);
  }
}

// Returns a call, `null` for "this is call-shaped but not a valid call" (stop looking inside), or undefined
// for "not call-shaped".
function matchNamedCall(
  object: Record<string, unknown>,
  tools: ToolSchemaIndex,
): ExtractedToolCall | null | undefined {
  let holder = object;
  if (isPlainObject(object.function)) holder = object.function;
  let name: string | undefined;
  for (const key of callNameKeys) {
    const candidate = holder[key];
    if (typeof candidate === 'string') {
      name = stripFunctionsPrefix(candidate.trim());
      break;
    }
  }
  if (name === undefined) return holder === object ? undefined : null;
  const tool = tools.get(name);
  if (!tool) return holder === object ? undefined : null;
  if ('description' in holder) return null;
  let rawArguments: unknown;
  let argumentsKeyFound = false;
  for (const key of callArgumentKeys) {
    if (key in holder) {
      rawArguments = holder[key];
      argumentsKeyFound = true;
      break;
    }
  }
  if (!argumentsKeyFound) {
    // `{"name": "get_weather"}` (no parameters) or `{"name": "get_weather", "city": "Oslo"}` (arguments written
    // flat beside the name): accepted only when every other key is a declared parameter of that tool.
    const extraKeys = Object.keys(holder).filter(
      (key) => !callNameKeys.includes(key) && !callBookkeepingKeys.has(key),
    );
    if (!extraKeys.every((key) => tool.properties.has(key))) return undefined;
    // Without an arguments key the object could be a mere mention (`[{"name": "get_weather"}]` listing tools).
    if (!tool.required.every((key) => extraKeys.includes(key))) return undefined;
    const flat: Record<string, unknown> = {};
    for (const key of extraKeys) flat[key] = holder[key];
    return { name: tool.name, arguments: parseToolArguments(flat) };
  }
  if (!isArgumentsValue(rawArguments)) return null;
  const parsed = parseToolArguments(rawArguments);
  if (looksLikeSchema(parsed, tool)) return null;
  return { name: tool.name, arguments: parsed };
}

// Arguments are an object, a JSON string holding one, or absent (`null`, ""). A number, an array or prose in
// "arguments" means the object is not a call (a description of one, a log line).
function isArgumentsValue(value: unknown): boolean {
  if (value === null || value === undefined || isPlainObject(value)) return true;
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  return trimmed === '' || trimmed.startsWith('{') || trimmed.startsWith('"');
}

function looksLikeSchema(argumentsObject: Record<string, unknown>, tool: ToolSchemaInfo): boolean {
  return (
    argumentsObject.type === 'object' &&
    isPlainObject(argumentsObject.properties) &&
    !tool.properties.has('properties') &&
    !tool.properties.has('type')
  );
}

/**
 * Bare arguments: the object must hold every required parameter of a tool and at least one of its declared
 * properties, with no more unknown keys than known ones. The tool with the most known keys wins; a tie means
 * the object is ambiguous and nothing is extracted. Unknown keys are dropped from the arguments.
 */
function matchBareArguments(
  object: Record<string, unknown>,
  tools: ToolSchemaIndex,
): ExtractedToolCall | null {
  const keys = Object.keys(object);
  if (keys.length === 0) return null;
  let best: ToolSchemaInfo | undefined;
  let bestScore = 0;
  let tied = false;
  for (const tool of tools.values()) {
    if (tool.properties.size === 0) continue;
    let known = 0;
    for (const key of keys) if (tool.properties.has(key)) known++;
    if (known === 0 || keys.length - known > known) continue;
    if (!tool.required.every((key) => key in object)) continue;
    if (known > bestScore) {
      best = tool;
      bestScore = known;
      tied = false;
    } else if (known === bestScore) {
      tied = true;
    }
  }
  if (!best || tied) return null;
  const filtered: Record<string, unknown> = {};
  for (const key of keys) if (best.properties.has(key)) filtered[key] = object[key];
  return { name: best.name, arguments: parseToolArguments(filtered) };
}
