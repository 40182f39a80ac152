/** What {@link ChunkCheck} answers for a chunk it leaves to the schema. */
export const unchecked: unique symbol = Symbol('unchecked');

/** A chunk's parsed value as the chunk schema would return it, or {@link unchecked}: the schema must decide. */
export type ChunkCheck = (value: unknown) => unknown;

/** The chunk schema's keys, in its shape's order (zod's output lists present keys in this order). */
const chunkKeys = ['id', 'created', 'model', 'choices', 'usage'] as const;
const choiceKeys = ['delta', 'finish_reason'] as const;
const deltaKeys = ['role', 'content', 'refusal', 'reasoning_content', 'reasoning', 'tool_calls'] as const;

/** The part of a zod v4 schema's introspection this file reads. */
interface SchemaShape {
  readonly def?: {
    readonly type?: string;
    readonly options?: readonly SchemaShape[];
    readonly shape?: Record<string, SchemaShape>;
    readonly element?: SchemaShape;
    readonly innerType?: SchemaShape;
    readonly catchall?: SchemaShape;
  };
}

/**
 * The common stream chunk of `@ai-sdk/openai-compatible`'s chat model (a token of text, its role, a finish reason),
 * checked by hand with the same rules as its zod chunk schema and returned in the form zod returns it. zod's parse of
 * such a chunk (a union: the chunk object, then the error object) cost several µs per token in a server, more than
 * the rest of the chunk's handling. Only the shapes this check covers fully are answered; anything else (tool
 * calls, content parts, usage, an error object, a wrong type anywhere) is {@link unchecked} and goes to the schema,
 * so the schema still decides every chunk it would reject or transform otherwise.
 *
 * The rules mirrored (the provider's `chunkBaseSchema`): a loose object (unknown keys kept, after the known ones);
 * `id`, `model` strings, `created` a number, each nullish; `choices` an array of strict objects (unknown keys
 * dropped) with a nullish `delta` (a strict object: `role` "assistant" or "", `content` a string, `refusal` any
 * value turned into itself when a string and undefined otherwise, `reasoning_content` and `reasoning` strings, each
 * nullish) and a nullish string `finish_reason`. Returns undefined when `schema` does not have that layout (another
 * provider version): then every chunk goes to the schema.
 */
export function openAICompatibleChunkCheck(schema: unknown): ChunkCheck | undefined {
  if (!hasChunkLayout(schema as SchemaShape)) return undefined;
  return checkChunk;
}

function checkChunk(value: unknown): unknown {
  if (!isRecord(value)) return unchecked;
  const choices = value.choices;
  if (!Array.isArray(choices)) return unchecked;
  const { id, created, model, usage } = value;
  if (!nullishString(id) || !nullishString(model) || usage != null) return unchecked;
  if (created != null && typeof created !== 'number') return unchecked;
  const outChoices: unknown[] = [];
  for (const choice of choices) {
    const checked = checkChoice(choice);
    if (checked === unchecked) return unchecked;
    outChoices.push(checked);
  }
  const out: Record<string, unknown> = {};
  if ('id' in value) out.id = id;
  if ('created' in value) out.created = created;
  if ('model' in value) out.model = model;
  out.choices = outChoices;
  if ('usage' in value) out.usage = usage;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || (chunkKeys as readonly string[]).includes(key)) continue;
    out[key] = value[key];
  }
  return out;
}

function checkChoice(choice: unknown): unknown {
  if (!isRecord(choice)) return unchecked;
  const { delta, finish_reason: finishReason } = choice;
  if (!nullishString(finishReason)) return unchecked;
  const out: Record<string, unknown> = {};
  if ('delta' in choice) {
    if (delta == null) out.delta = delta;
    else {
      const checked = checkDelta(delta);
      if (checked === unchecked) return unchecked;
      out.delta = checked;
    }
  }
  if ('finish_reason' in choice) out.finish_reason = finishReason;
  return out;
}

function checkDelta(delta: unknown): unknown {
  if (!isRecord(delta)) return unchecked;
  const { role, content, refusal, reasoning_content: reasoningContent, reasoning, tool_calls } = delta;
  if (role != null && role !== 'assistant' && role !== '') return unchecked;
  if (!nullishString(content) || !nullishString(reasoningContent) || !nullishString(reasoning))
    return unchecked;
  if (tool_calls != null) return unchecked;
  const out: Record<string, unknown> = {};
  if ('role' in delta) out.role = role;
  if ('content' in delta) out.content = content;
  if ('refusal' in delta) out.refusal = typeof refusal === 'string' ? refusal : undefined;
  if ('reasoning_content' in delta) out.reasoning_content = reasoningContent;
  if ('reasoning' in delta) out.reasoning = reasoning;
  if ('tool_calls' in delta) out.tool_calls = tool_calls;
  return out;
}

/** A plain object as zod's object check takes it (not null, not an array). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nullishString(value: unknown): boolean {
  return value == null || typeof value === 'string';
}

/** Whether `schema` is the provider's chunk union with the object layout {@link checkChunk} mirrors. */
function hasChunkLayout(schema: SchemaShape | undefined): boolean {
  const base = schema?.def?.type === 'union' ? schema.def.options?.[0] : undefined;
  if (base?.def?.type !== 'object' || base.def.catchall?.def?.type !== 'unknown') return false;
  if (!sameKeys(base.def.shape, chunkKeys)) return false;
  const choice = unwrap(base.def.shape?.choices)?.def;
  const item = choice?.type === 'array' ? choice.element : undefined;
  if (item?.def?.type !== 'object' || item.def.catchall !== undefined) return false;
  if (!sameKeys(item.def.shape, choiceKeys)) return false;
  const delta = unwrap(item.def.shape?.delta);
  return (
    delta?.def?.type === 'object' && delta.def.catchall === undefined && sameKeys(delta.def.shape, deltaKeys)
  );
}

function unwrap(schema: SchemaShape | undefined): SchemaShape | undefined {
  let current = schema;
  while (current?.def?.type === 'optional' || current?.def?.type === 'nullable')
    current = current.def.innerType;
  return current;
}

function sameKeys(shape: Record<string, SchemaShape> | undefined, keys: readonly string[]): boolean {
  if (shape === undefined) return false;
  const own = Object.keys(shape);
  return own.length === keys.length && own.every((key, index) => key === keys[index]);
}
