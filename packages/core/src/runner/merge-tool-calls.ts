import type { MergeableField, Tool, ToolCall } from '@toolbus/spec';

/** The result of {@link mergeToolCalls}. */
export interface MergedToolCalls {
  /** The calls to run, in order of each group's first call. */
  readonly calls: readonly ToolCall[];
  /** For each call id folded into another call: the id of the call that carries its work. */
  readonly mergedInto: ReadonlyMap<string, string>;
}

/**
 * The field under which `call` would be merged with other calls of its tool, or undefined when it runs on its
 * own: the tool must declare a `mergeableField` (a name alone never makes a tool mergeable), the arguments must
 * be a plain object, and the field's value a string or a list of strings. Anything else runs alone, so the tool
 * validates it and the model reads its own mistake, instead of its input being silently dropped into another
 * call.
 */
export function mergeableFieldOf(
  call: ToolCall,
  tool: Pick<Tool, 'mergeableField'> | undefined,
): MergeableField | undefined {
  return mergeableItems(call, tool)?.field;
}

/** The call's items under its tool's mergeable field, or undefined; never throws, whatever the arguments are. */
function mergeableItems(
  call: ToolCall,
  tool: Pick<Tool, 'mergeableField'> | undefined,
): { field: MergeableField; values: readonly string[] } | undefined {
  const field = tool?.mergeableField;
  if (field === undefined) return undefined;
  try {
    const args: unknown = call.arguments;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
    const prototype = Object.getPrototypeOf(args);
    if (prototype !== Object.prototype && prototype !== null) return undefined;
    // Data properties only (what JSON gives): a getter could throw when the merged call copies the arguments,
    // or answer differently each time it is read.
    const descriptors = Object.getOwnPropertyDescriptors(args);
    if (!Object.values(descriptors).every((descriptor) => 'value' in descriptor)) return undefined;
    const value: unknown = descriptors[field]?.value;
    if (typeof value === 'string') return { field, values: [value] };
    if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
      return { field, values: [...value] };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * Folds several calls of a tool that declares a `mergeableField` (internal_search and web_search on `queries`,
 * open_url on `urls`) into one, which keeps the first call's id and placement (it is one tab in the UI). A single
 * string where the list belongs is taken as one item; duplicate items are dropped. Calls that cannot be merged
 * (see {@link mergeableFieldOf}) and calls of other tools pass through unchanged.
 */
export function mergeToolCalls(
  calls: readonly ToolCall[],
  tools: ReadonlyMap<string, Pick<Tool, 'mergeableField'>>,
): MergedToolCalls {
  const mergedInto = new Map<string, string>();
  const firstByName = new Map<string, number>();
  const output: ToolCall[] = [];
  const items = new Map<number, { field: MergeableField; values: string[] }>();
  for (const call of calls) {
    const mergeable = mergeableItems(call, tools.get(call.name));
    if (mergeable === undefined) {
      output.push(call);
      continue;
    }
    const { field, values } = mergeable;
    const firstIndex = firstByName.get(call.name);
    if (firstIndex === undefined) {
      firstByName.set(call.name, output.length);
      items.set(output.length, { field, values: [...values] });
      output.push(call);
    } else {
      items.get(firstIndex)?.values.push(...values);
      mergedInto.set(call.id, (output[firstIndex] as ToolCall).id);
    }
  }
  for (const [index, { field, values }] of items) {
    const call = output[index] as ToolCall;
    output[index] = { ...call, arguments: { ...call.arguments, [field]: [...new Set(values)] } };
  }
  return { calls: output, mergedInto };
}
