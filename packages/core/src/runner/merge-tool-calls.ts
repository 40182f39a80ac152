import type { ToolCall } from '@toolbus/spec';
import { MERGEABLE_TOOL_FIELDS, type MergeableField } from '../registry/built-in-tools.ts';

/** The result of {@link mergeToolCalls}. */
export interface MergedToolCalls {
  /** The calls to run, in order of each group's first call. */
  readonly calls: readonly ToolCall[];
  /** For each call id folded into another call: the id of the call that carries its work. */
  readonly mergedInto: ReadonlyMap<string, string>;
}

/**
 * Folds several calls of a mergeable tool (internal_search and web_search on `queries`, open_url on `urls`) into
 * one, which keeps the first call's id and placement (it is one tab in the UI). A single string where the list
 * belongs is taken as one item; duplicate items are dropped. Every other call passes through unchanged.
 */
export function mergeToolCalls(
  calls: readonly ToolCall[],
  mergeableFields: ReadonlyMap<string, MergeableField> = MERGEABLE_TOOL_FIELDS,
): MergedToolCalls {
  const mergedInto = new Map<string, string>();
  const firstByName = new Map<string, number>();
  const output: ToolCall[] = [];
  const items = new Map<number, unknown[]>();
  for (const call of calls) {
    const field = mergeableFields.get(call.name);
    if (!field) {
      output.push(call);
      continue;
    }
    const values = listItems(call.arguments[field]);
    const firstIndex = firstByName.get(call.name);
    if (firstIndex === undefined) {
      firstByName.set(call.name, output.length);
      items.set(output.length, [...values]);
      output.push(call);
    } else {
      (items.get(firstIndex) as unknown[]).push(...values);
      mergedInto.set(call.id, (output[firstIndex] as ToolCall).id);
    }
  }
  for (const [index, values] of items) {
    const call = output[index] as ToolCall;
    const field = mergeableFields.get(call.name) as MergeableField;
    output[index] = { ...call, arguments: { ...call.arguments, [field]: unique(values) } };
  }
  return { calls: output, mergedInto };
}

function listItems(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  if (value === undefined || value === null) return [];
  return [typeof value === 'string' ? value : String(value)];
}

function unique(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const result: unknown[] = [];
  for (const value of values) {
    const key = typeof value === 'string' ? `s:${value}` : `j:${JSON.stringify(value)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(value);
  }
  return result;
}
