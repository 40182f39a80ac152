// A real ToolRunContext for calling a tool directly: an emitter that records what it receives.
import type { PacketObject, Placement, ToolCall, ToolEmitter, ToolRunContext } from '@toolbus/spec';

/** What {@link createTestRunContext} returns. */
export interface TestRunContext {
  readonly context: ToolRunContext;
  readonly emitted: PacketObject[];
  readonly call: (name: string, args: Record<string, unknown>) => ToolCall;
}

/** A context whose emitter keeps every packet, at turn 0 / tab 0. */
export function createTestRunContext(signal: AbortSignal = new AbortController().signal): TestRunContext {
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
    signal,
    userQuery: 'test',
    history: [],
    files: [],
    // MCP tools never cite; using the allocator would be a bug the test should see.
    citations: {
      assign: () => {
        throw new Error('MCP tools do not cite');
      },
      numberOf: () => undefined,
      nextNumber: 1,
    },
    extras: {},
  };
  let counter = 0;
  return {
    context,
    emitted,
    call: (name, args) => ({ id: `call-${++counter}`, name, arguments: args, placement }),
  };
}
