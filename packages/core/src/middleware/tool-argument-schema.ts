import type { ToolDefinition } from '@toolbus/spec';
import { z } from 'zod';

/** The most validators kept by schema text: a gateway serves many clients, each with its own tools. */
const maximumKept = 256;
/** A schema longer than this is compiled for its definition alone: its text would be a large cache key. */
const maximumKeyLength = 64 * 1024;

const byDefinition = new WeakMap<ToolDefinition, z.ZodType | null>();
const byText = new Map<string, z.ZodType | null>();

/**
 * The validator of a tool's JSON schema, to check the arguments of a call recovered from text; undefined when
 * zod cannot read the schema (it then validates nothing). Compiling one costs a third of a millisecond, at an
 * answer's end, and a caller that builds its tool definitions for every request (the gateway reads them from
 * each request's body) would compile the same schema for every answer that recovers a call: validators are kept
 * per definition and, bounded, per schema text (least recently used dropped first).
 */
export function toolArgumentSchemaOf(tool: ToolDefinition): z.ZodType | undefined {
  let schema = byDefinition.get(tool);
  if (schema === undefined) {
    schema = fromText(tool.parameters);
    byDefinition.set(tool, schema);
  }
  return schema ?? undefined;
}

function fromText(parameters: unknown): z.ZodType | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(parameters);
  } catch {
    text = undefined;
  }
  if (text === undefined || text.length > maximumKeyLength) return compile(parameters);
  let schema = byText.get(text);
  if (schema !== undefined) {
    // Used again: moved to the end, the most recently used.
    byText.delete(text);
  } else {
    schema = compile(parameters);
    if (byText.size >= maximumKept) byText.delete(byText.keys().next().value as string);
  }
  byText.set(text, schema);
  return schema;
}

function compile(parameters: unknown): z.ZodType | null {
  try {
    return z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return null;
  }
}
