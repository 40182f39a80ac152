import { openAICompatibleChunkCheck, unchecked } from './openai-compatible-chunk-check.ts';

/** The part of a zod schema this file uses: its synchronous and asynchronous safe parse. */
interface ZodLike {
  readonly '~standard': { readonly vendor: string };
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: unknown };
  safeParseAsync(
    value: unknown,
  ): Promise<{ success: true; data: unknown } | { success: false; error: unknown }>;
}

/** A chunk schema's check: the parsed chunk or the schema's error, synchronously unless the schema is asynchronous. */
export type ChunkValidator = (
  value: unknown,
) =>
  | { success: true; value: unknown }
  | { success: false; error: unknown }
  | Promise<{ success: true; value: unknown } | { success: false; error: unknown }>;

/** The AI SDK's schema marker (`Symbol.for`, so it is the provider package's own, whichever copy loaded it). */
const aiSdkSchema = Symbol.for('vercel.ai.schema');

/**
 * Makes an OpenAI-compatible chat model validate each stream chunk with its own zod schema synchronously. The
 * provider validates every chunk through `asSchema`, which wraps the zod schema in a fresh AI SDK schema object
 * and runs zod's `safeParseAsync` (a promise chain per chunk): with a token per chunk that is a measurable part
 * of a server's CPU per token. Handing the provider an AI SDK schema that runs the same zod schema's `safeParse`
 * keeps every check and every parsed value (zod strips and defaults as before), without the wrapping or the
 * promises. A schema with an asynchronous part (zod throws on the synchronous parse) falls back to the
 * asynchronous parse. A model without a zod `chunkSchema` (another provider, another version) is left alone.
 * Returns the check (the direct SSE reader uses the same one), or undefined when the model was left alone.
 */
export function validateChunksSynchronously(model: object): ChunkValidator | undefined {
  const holder = model as { chunkSchema?: unknown };
  const schema = holder.chunkSchema;
  if (!isZodSchema(schema)) return undefined;
  // The common chunk (a token of text) checked by hand with the schema's own rules; the rest by the schema.
  const check = openAICompatibleChunkCheck(schema);
  const validate: ChunkValidator = (value) => {
    if (check !== undefined) {
      const checked = check(value);
      if (checked !== unchecked) return { success: true, value: checked };
    }
    let result: ReturnType<ZodLike['safeParse']>;
    try {
      result = schema.safeParse(value);
    } catch {
      return schema.safeParseAsync(value).then(toValidationResult);
    }
    return toValidationResult(result);
  };
  holder.chunkSchema = {
    [aiSdkSchema]: true,
    _type: undefined,
    // Only structured output reads a schema's JSON Schema; a stream chunk's schema is only validated.
    jsonSchema: {},
    validate,
  };
  return validate;
}

function toValidationResult(result: ReturnType<ZodLike['safeParse']>) {
  return result.success
    ? { success: true as const, value: result.data }
    : { success: false as const, error: result.error };
}

function isZodSchema(value: unknown): value is ZodLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Partial<ZodLike>)['~standard']?.vendor === 'zod' &&
    typeof (value as Partial<ZodLike>).safeParse === 'function' &&
    typeof (value as Partial<ZodLike>).safeParseAsync === 'function'
  );
}
