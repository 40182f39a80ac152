import type { AvailabilityContext, PacketObject, Tool, ToolEmitter } from '@toolbus/spec';

/** The outcome of one availability check: a throw is recorded, never propagated. */
export type AvailabilityOutcome =
  | { readonly available: boolean }
  | { readonly available: false; readonly error: unknown };

/** Runs `tool.isAvailable`, turning a throw or a rejected promise into "unavailable" with the error kept. */
export async function checkAvailability(
  tool: Tool,
  context: AvailabilityContext,
): Promise<AvailabilityOutcome> {
  try {
    return { available: (await tool.isAvailable(context)) === true };
  } catch (error) {
    return { available: false, error };
  }
}

/**
 * The same tool behind a delegating object: optionally under another LLM-facing name (also in its definition), and
 * with an `isAvailable` that answers false instead of throwing, so a later check by the runner cannot fail a turn
 * either. Methods are called on the original object, so class-based tools with private state keep working.
 */
export function adaptTool(tool: Tool, options: { readonly name?: string } = {}): Tool {
  const name = options.name ?? tool.name;
  const renamed = name !== tool.name;
  const emitterFor = (emitter: ToolEmitter) =>
    renamed ? renamingEmitter(emitter, tool.name, name) : emitter;
  return {
    name,
    description: tool.description,
    displayName: tool.displayName,
    streamsArgumentDeltas: tool.streamsArgumentDeltas,
    concurrency: tool.concurrency,
    timeoutMs: tool.timeoutMs,
    stopsTurn: tool.stopsTurn,
    mergeableField: tool.mergeableField,
    maxCallsPerCycle: tool.maxCallsPerCycle,
    definition: () => ({ ...tool.definition(), name }),
    isAvailable: async (context) => (await checkAvailability(tool, context)).available,
    emitStart: (placement, emitter, call) => tool.emitStart(placement, emitterFor(emitter), call),
    run: (call, context) =>
      tool.run(call, renamed ? { ...context, emitter: emitterFor(context.emitter) } : context),
  };
}

/** An emitter that rewrites `toolName` in the packets of a renamed tool, so the UI sees the name the model used. */
function renamingEmitter(emitter: ToolEmitter, from: string, to: string): ToolEmitter {
  const rename = (obj: PacketObject): PacketObject =>
    'toolName' in obj && obj.toolName === from ? ({ ...obj, toolName: to } as PacketObject) : obj;
  return {
    get placement() {
      return emitter.placement;
    },
    get closed() {
      return emitter.closed;
    },
    emit: (obj) => emitter.emit(rename(obj)),
    emitAt: (placement, obj) => emitter.emitAt(placement, rename(obj)),
    nested: (level) => renamingEmitter(emitter.nested(level), from, to),
  };
}
