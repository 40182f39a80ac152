// A real ToolRunContext for calling a tool's `run` directly in a test, without the runner around it.
import type { PacketObject, Placement, ToolCall, ToolRunContext } from '@toolbus/spec';
import { createCitationAllocator } from '../citations/citation-allocator.ts';
import { createFencedToolEmitter } from '../emitter/fenced-tool-emitter.ts';

/** Options for {@link createTestRunContext}. */
export interface TestRunContextOptions {
  /** The call's abort signal; by default one that never aborts. */
  readonly signal?: AbortSignal;
  /**
   * Whether the tool under test may take citation numbers (default true). With false its citation view starts
   * fenced, so a tool that must never cite (MCP, OpenAPI) fails the test with `citation_allocator_fenced`.
   */
  readonly allowCitations?: boolean;
}

/** What {@link createTestRunContext} returns. */
export interface TestRunContext {
  readonly context: ToolRunContext;
  /** Every packet the tool emitted through `context.emitter`, in order. */
  readonly emitted: PacketObject[];
  /** Builds a call at the context's placement, each with a fresh id (`call-1`, `call-2`, ...). */
  readonly call: (name: string, args: Record<string, unknown>) => ToolCall;
}

/**
 * Creates a context at turn 0 / tab 0 with the runner's own parts: a fenced tool emitter writing into a list
 * and a view of a fresh turn citation allocator.
 */
export function createTestRunContext(options: TestRunContextOptions = {}): TestRunContext {
  const placement: Placement = { turn: 0, tab: 0 };
  const emitted: PacketObject[] = [];
  const emitter = createFencedToolEmitter(
    {
      emitAt: (_placement, obj) => {
        emitted.push(obj);
      },
    },
    placement,
  );
  const citations = createCitationAllocator().view();
  if (options.allowCitations === false) citations.fence();
  const context: ToolRunContext = {
    placement,
    emitter,
    signal: options.signal ?? new AbortController().signal,
    userQuery: 'test',
    history: [],
    files: [],
    citations,
    extras: {},
  };
  let counter = 0;
  return {
    context,
    emitted,
    call: (name, args) => {
      counter += 1;
      return { id: `call-${counter}`, name, arguments: args, placement };
    },
  };
}
