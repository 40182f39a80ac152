import type { ChatFile, ChatMessage } from './chat-message.ts';
import type { CitationAllocator } from './citation-allocator.ts';
import type { ElicitationAsker } from './elicitation.ts';
import type { McpCallRelay } from './mcp-call-relay.ts';
import type { Placement } from './placement.ts';
import type { ToolCall } from './tool-call.ts';
import type { ToolDefinition } from './tool-definition.ts';
import type { ToolEmitter } from './tool-emitter.ts';
import type { ToolResponse } from './tool-response.ts';

/**
 * How a tool may share a cycle with other calls:
 * - `parallel`: runs alongside anything (the default; read-only tools);
 * - `serial`: one at a time among the calls of its tool, in call order (tools that write);
 * - `exclusive`: runs alone, after what started before it and before what comes after it.
 */
export type ConcurrencyClass = 'parallel' | 'serial' | 'exclusive';

/**
 * The list argument whose values are combined when a tool that declares it is called several times in one cycle
 * (the searches on `queries`, open_url on `urls`): the calls run once, as one call over every item.
 */
export type MergeableField = 'queries' | 'urls';

/** What `isAvailable` may look at. Applications add their own fields (user, database handles). */
export interface AvailabilityContext {
  readonly userId?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly [key: string]: unknown;
}

/**
 * What the backend supplies to a running tool, separately from the arguments the model filled in: the model never
 * sees or fills these, so it cannot forge the user, the files or the cancellation a tool acts on.
 */
export interface ToolRunContext {
  readonly placement: Placement;
  /** Emits at the call's placement; fenced when the call ends. */
  readonly emitter: ToolEmitter;
  /** Aborted on timeout or when the turn is cancelled; tools pass it to every await that can take long. */
  readonly signal: AbortSignal;
  /** The user's original question of this turn. */
  readonly userQuery: string;
  readonly history: readonly ChatMessage[];
  readonly files: readonly ChatFile[];
  /** The turn's citation allocator (fenced like the emitter). */
  readonly citations: CitationAllocator;
  readonly userId?: string;
  /** Application-specific values (database handles, settings), passed through untouched. */
  readonly extras: Readonly<Record<string, unknown>>;
  /**
   * Asks the user a question mid-call (an MCP server's elicitation), where the user is: absent where nobody can
   * answer (a research sub-agent, the MCP endpoint), and then the question is cancelled.
   */
  readonly elicit?: ElicitationAsker;
  /**
   * Set when the caller speaks MCP (the `/v1/mcp/…` endpoint): an MCP tool passes its server's log messages and its
   * result's own content through it. Absent in a chat turn.
   */
  readonly mcpRelay?: McpCallRelay;
}

/**
 * The contract every tool meets: built-in tools, OpenAPI operations and MCP tools plug into the same bus.
 * `defineTool` in @toolbus/core builds one from a zod schema with sensible defaults.
 */
export interface Tool {
  /** The LLM-facing function name (`^[a-zA-Z0-9_-]{1,64}$`). */
  readonly name: string;
  /** What the model reads to decide when to call it. */
  readonly description: string;
  /** What a person sees in the UI. */
  readonly displayName: string;
  /** Whether argument fragments stream to the UI while the model writes them (e.g. python's `code`). */
  readonly streamsArgumentDeltas: boolean;
  readonly concurrency: ConcurrencyClass;
  /** Per-call timeout; the runner's default (10 minutes) when absent. */
  readonly timeoutMs?: number | undefined;
  /**
   * A successful run ends the turn's loop (image generation: the picture is the answer). Declared by the tool, so
   * a user's tool that happens to share a built-in's name is never taken for it.
   */
  readonly stopsTurn?: boolean | undefined;
  /**
   * The list argument (a list of strings) under which several calls of this tool in one cycle are merged into one
   * call. Absent: every call runs on its own. Declared by the tool, never looked up by its name.
   */
  readonly mergeableField?: MergeableField | undefined;
  /**
   * At most this many calls of this tool run per cycle; later ones are answered without running (a research
   * orchestrator's parallel agents). Absent: no limit of its own.
   */
  readonly maxCallsPerCycle?: number | undefined;
  /** The function definition that goes into the LLM request. */
  definition(): ToolDefinition;
  /** Live availability (a health probe, a feature flag). A throw means unavailable, never a failed turn. */
  isAvailable(context: AvailabilityContext): boolean | Promise<boolean>;
  /** Emits the packets that open the tool's section in the UI. */
  emitStart(placement: Placement, emitter: ToolEmitter, call: ToolCall): void;
  /** Runs the call. Throw `ToolCallError` for mistakes the model can fix, `ToolExecutionError` for failures. */
  run(call: ToolCall, context: ToolRunContext): Promise<ToolResponse>;
}
