import type { JSONSchema7, LanguageModelV4FunctionTool, LanguageModelV4ToolChoice } from '@ai-sdk/provider';
import type { ToolDefinition } from '@toolbus/spec';

/** How the model may use tools this step: as it likes, not at all, at least one, or one named tool. */
export type ModelToolChoice = 'auto' | 'none' | 'required' | { readonly toolName: string };

/** Tool definitions as sent to the model → the AI SDK's function tools. */
export function toLanguageModelTools(definitions: readonly ToolDefinition[]): LanguageModelV4FunctionTool[] {
  return definitions.map((definition) => ({
    type: 'function',
    name: definition.name,
    description: definition.description,
    inputSchema: definition.parameters as JSONSchema7,
  }));
}

/** toolbus's tool choice → the AI SDK's. */
export function toLanguageModelToolChoice(choice: ModelToolChoice): LanguageModelV4ToolChoice {
  if (typeof choice === 'object') return { type: 'tool', toolName: choice.toolName };
  return { type: choice };
}
