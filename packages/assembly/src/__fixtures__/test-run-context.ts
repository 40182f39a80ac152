// A real ToolRunContext for calling a tool directly: an emitter that records packets, a real citation allocator.
import { createCitationAllocator } from '@toolbus/core';
import type { PacketObject, Placement, ToolCall, ToolEmitter, ToolRunContext } from '@toolbus/spec';

/** A context at turn 0 / tab 0, the packets it received, and a call builder. */
export function createTestRunContext(): {
  readonly context: ToolRunContext;
  readonly emitted: PacketObject[];
  readonly call: (name: string, args: Record<string, unknown>) => ToolCall;
} {
  const placement: Placement = { turn: 0, tab: 0 };
  const emitted: PacketObject[] = [];
  const emitter: ToolEmitter = {
    placement,
    closed: false,
    emit: (obj) => {
      emitted.push(obj);
    },
    emitAt: (_placement, obj) => {
      emitted.push(obj);
    },
    nested: () => emitter,
  };
  const context: ToolRunContext = {
    placement,
    emitter,
    signal: new AbortController().signal,
    userQuery: 'test',
    history: [],
    files: [],
    citations: createCitationAllocator(),
    extras: {},
  };
  let counter = 0;
  return { context, emitted, call: (name, args) => ({ id: `call-${++counter}`, name, arguments: args, placement }) };
}
