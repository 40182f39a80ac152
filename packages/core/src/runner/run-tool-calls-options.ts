import type { ChatFile, ChatMessage, ElicitationAsker, McpCallRelay, Tool, ToolCall } from '@toolbus/spec';
import type { TurnCitationAllocator } from '../citations/citation-allocator.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';
import type { ToolRunHooks } from './tool-run-hooks.ts';

/**
 * Options for `runToolCalls` and `ToolCallBatch`. Everything is optional. What a tool does in a batch (whether it
 * stops the turn, which list argument merges its calls, its timeout) is declared by the tool, not given here.
 */
export interface RunToolCallsOptions {
  /** Where packets go: the turn's `Emitter`, or a tool's own emitter when a sub-agent runs tools. */
  readonly emitter?: PacketSink | undefined;
  /** The turn's allocator; a fresh one starting at `startCitationNumber` when absent. */
  readonly citations?: TurnCitationAllocator | undefined;
  readonly startCitationNumber?: number | undefined;
  readonly userQuery?: string | undefined;
  readonly history?: readonly ChatMessage[] | undefined;
  readonly files?: readonly ChatFile[] | undefined;
  readonly userId?: string | undefined;
  readonly extras?: Readonly<Record<string, unknown>> | undefined;
  /** Given to every call as `context.elicit`: how a tool asks the user something mid-call. */
  readonly elicit?: ElicitationAsker | undefined;
  /** Given to every call as `context.mcpRelay`: set when the calls are served to an MCP client. */
  readonly mcpRelay?: McpCallRelay | undefined;
  /** The turn's cancellation: aborts every running call, each of which is answered as cancelled. */
  readonly signal?: AbortSignal | undefined;
  /** At most this many calls run (and at once); the rest are answered without running. Default: no limit. */
  readonly maxConcurrentTools?: number | undefined;
  /** Per-call timeout unless the tool sets its own. Default 10 minutes. */
  readonly defaultTimeoutMs?: number | undefined;
  readonly hooks?: ToolRunHooks | undefined;
}

/** The one options object of `runToolCalls`: the calls, the tools they may name, and how they run. */
export interface RunToolCallsInput extends RunToolCallsOptions {
  /** One cycle's calls; every id gets exactly one result, in this order. */
  readonly calls: readonly ToolCall[];
  readonly tools: readonly Tool[] | ReadonlyMap<string, Tool>;
}
