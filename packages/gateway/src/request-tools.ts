import type { ToolDefinition } from '@toolbus/spec';
import { isPlainObject } from '@toolbus/spec';

/**
 * The tools a recovered call may name, from an OpenAI Chat Completions request: its `function` tools, none when
 * `tool_choice` is `none`, only the named one when it forces a function.
 */
export function requestToolDefinitions(body: Record<string, unknown>): ToolDefinition[] {
  const choice = body.tool_choice;
  if (choice === 'none') return [];
  const forced =
    isPlainObject(choice) && isPlainObject(choice.function) && typeof choice.function.name === 'string'
      ? choice.function.name
      : undefined;
  const definitions: ToolDefinition[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isPlainObject(tool) || tool.type !== 'function' || !isPlainObject(tool.function)) continue;
    const { name, description, parameters } = tool.function;
    if (typeof name !== 'string' || name === '') continue;
    if (forced !== undefined && forced !== name) continue;
    definitions.push({
      name,
      description: typeof description === 'string' ? description : '',
      parameters: (isPlainObject(parameters)
        ? parameters
        : { type: 'object', properties: {} }) as ToolDefinition['parameters'],
    });
  }
  return definitions;
}
