import type { PacketObject, Placement, ToolCall, ToolEmitter, ToolRunContext } from '@toolbus/spec';

/** A run context whose emitter records what a tool emits (the contract's interface, implemented for tests). */
export function recordingContext(signal: AbortSignal = new AbortController().signal): {
  context: ToolRunContext;
  packets: PacketObject[];
} {
  const packets: PacketObject[] = [];
  const placement: Placement = { turn: 0, tab: 0 };
  const emitter: ToolEmitter = {
    placement,
    closed: false,
    emit: (obj) => packets.push(obj),
    emitAt: (_placement, obj) => packets.push(obj),
    nested: () => emitter,
  };
  const context: ToolRunContext = {
    placement,
    emitter,
    signal,
    userQuery: 'test',
    history: [],
    files: [],
    citations: {
      assign: () => {
        throw new Error('OpenAPI tools do not cite');
      },
      numberOf: () => undefined,
      nextNumber: 1,
    },
    extras: {},
  };
  return { context, packets };
}

/** A call as the runner would hand it over. */
export function toolCall(name: string, args: Record<string, unknown>): ToolCall {
  return { id: `call-${name}`, name, arguments: args, placement: { turn: 0, tab: 0 } };
}
