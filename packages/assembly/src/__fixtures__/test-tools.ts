// Real built-in tools for tests: plain objects meeting the Tool contract (tools are the contract, so defining
// them here is not a stub of toolbus code). Each records how often it was built and checked.
import { createTestRunContext } from '@toolbus/core/testing';
import type { AvailabilityContext, Tool } from '@toolbus/spec';
import type { BuiltInToolFactory } from '../built-in-tool-factory.ts';

/** Options for {@link builtInTool}. */
export interface BuiltInToolOptions {
  readonly name: string;
  readonly isAvailable?: (context: AvailabilityContext) => boolean | Promise<boolean>;
}

/** A tool that answers `<name> ran with <arguments>`. */
export function builtInTool(options: BuiltInToolOptions): Tool {
  return {
    name: options.name,
    description: `The ${options.name} tool.`,
    displayName: options.name,
    streamsArgumentDeltas: false,
    concurrency: 'parallel',
    definition: () => ({
      name: options.name,
      description: `The ${options.name} tool.`,
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    }),
    isAvailable: options.isAvailable ?? (() => true),
    emitStart(_placement, emitter, call) {
      emitter.emit({
        type: 'tool-start',
        toolCallId: call.id,
        toolName: options.name,
        displayName: options.name,
        arguments: call.arguments,
      });
    },
    async run(call) {
      return { llmFacing: `${options.name} ran with ${JSON.stringify(call.arguments)}` };
    },
  };
}

/** Factories for the usual built-ins, each making a {@link builtInTool} under the registry's LLM name. */
export function builtInFactories(
  overrides: Readonly<Record<string, BuiltInToolFactory>> = {},
): Map<string, BuiltInToolFactory> {
  const names: Record<string, string> = {
    SearchTool: 'internal_search',
    WebSearchTool: 'web_search',
    OpenURLTool: 'open_url',
    PythonTool: 'python',
    MemoryTool: 'add_memory',
  };
  const factories = new Map<string, BuiltInToolFactory>();
  for (const [id, name] of Object.entries(names)) factories.set(id, () => builtInTool({ name }));
  for (const [id, factory] of Object.entries(overrides)) factories.set(id, factory);
  return factories;
}

/** What one call of `tool` with `args` returns to the model. */
export async function llmFacingOf(tool: Tool, args: Record<string, unknown> = {}): Promise<string> {
  const { context, call } = createTestRunContext();
  return (await tool.run(call(tool.name, args), context)).llmFacing;
}
