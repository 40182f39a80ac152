import type {
  ChatFile,
  ChatMessage,
  CitedDocument,
  PlacementLevel,
  Tool,
  ToolCall,
  ToolResponse,
} from '@toolbus/spec';
import { ToolbusError } from '@toolbus/spec';
import { createCitationAllocator, type TurnCitationAllocator } from '../citations/citation-allocator.ts';
import { nullPacketSink, type PacketSink } from '../emitter/packet-sink.ts';
import { MERGEABLE_TOOL_FIELDS, type MergeableField, STOPPING_TOOLS } from '../registry/built-in-tools.ts';
import { CallRun, type SharedRunState } from './call-run.ts';
import { collectToolCallResults } from './collect-tool-call-results.ts';
import { ConcurrencyScheduler } from './concurrency-scheduler.ts';
import { createDeadlineTimer } from './deadline-timer.ts';
import { failureResponse } from './failure-responses.ts';
import { mergeToolCalls } from './merge-tool-calls.ts';
import type { ToolCallStatus, ToolRunHooks } from './tool-run-hooks.ts';

/** The seed's `TOOL_EXECUTION_TIMEOUT_SECONDS`: 10 minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60 * 1000;

/** Options for {@link runToolCalls}. Everything is optional. */
export interface RunToolCallsOptions {
  /** Where packets go: the turn's `Emitter`, or a tool's own emitter when a sub-agent runs tools. */
  readonly emitter?: PacketSink;
  /** The turn's allocator; a fresh one starting at `startCitationNumber` when absent. */
  readonly citations?: TurnCitationAllocator;
  readonly startCitationNumber?: number;
  readonly userQuery?: string;
  readonly history?: readonly ChatMessage[];
  readonly files?: readonly ChatFile[];
  readonly userId?: string;
  readonly extras?: Readonly<Record<string, unknown>>;
  /** The turn's cancellation: aborts every running call, each of which is answered as cancelled. */
  readonly signal?: AbortSignal;
  /** At most this many calls run (and at once); the rest are answered without running. Default: no limit. */
  readonly maxConcurrentTools?: number;
  /** Per-call timeout unless the tool sets its own. Default 10 minutes. */
  readonly defaultTimeoutMs?: number;
  readonly hooks?: ToolRunHooks;
  readonly mergeableFields?: ReadonlyMap<string, MergeableField>;
  /** Tool names whose successful run ends the loop. Default: the built-in STOPPING_TOOLS. */
  readonly stoppingTools?: ReadonlySet<string>;
}

/** How one of the model's calls was answered. */
export interface ToolCallOutcome {
  /** The call as the model produced it. */
  readonly call: ToolCall;
  /** The call that actually ran for it (a merged call carries several model calls); absent when nothing ran. */
  readonly ranAs?: ToolCall;
  readonly status: ToolCallStatus;
  readonly response: ToolResponse;
}

/** What {@link runToolCalls} returns. */
export interface RunToolCallsResult {
  /** One per call the model produced, in call order. */
  readonly outcomes: readonly ToolCallOutcome[];
  /** One `tool` message per call id, in call order: ready to append to history after the assistant message. */
  readonly messages: readonly ChatMessage[];
  /** The citation numbers given out to calls whose results were recorded, merged across calls. */
  readonly citations: ReadonlyMap<number, CitedDocument>;
  /** True when a stopping tool (image generation) ran successfully: the loop should end. */
  readonly stopped: boolean;
}

/**
 * Runs one cycle's tool calls (seed §4): merge duplicate search/open_url calls; answer unknown tools and calls
 * over the cap without running them; start each call with its own fenced emitter, citation view, abort signal
 * and timeout; run them concurrently within their concurrency classes; turn every failure into a result the
 * model can read. Every call id the model produced gets exactly one result, in call order.
 */
export function runToolCalls(
  calls: readonly ToolCall[],
  tools: readonly Tool[] | ReadonlyMap<string, Tool>,
  options: RunToolCallsOptions = {},
): Promise<RunToolCallsResult> {
  return new ToolCallBatch(tools, options).settle(calls);
}

/**
 * A cycle's tool calls, started one by one as they become known: the turn loop adds a call the moment the model
 * has finished writing it, while the model is still streaming the rest, then settles the batch with every call
 * of the step (mergeable search calls only run then, merged). `runToolCalls` is a batch settled at once.
 */
export class ToolCallBatch {
  readonly #toolsByName: ReadonlyMap<string, Tool>;
  readonly #shared: SharedRunState;
  readonly #scheduler = new ConcurrencyScheduler();
  readonly #added = new Set<string>();
  readonly #cap: number;
  readonly #onTurnAbort: () => void;
  #runnableCount = 0;
  #settled = false;

  constructor(tools: readonly Tool[] | ReadonlyMap<string, Tool>, options: RunToolCallsOptions = {}) {
    this.#toolsByName =
      tools instanceof Map ? (tools as ReadonlyMap<string, Tool>) : indexByName(tools as Tool[]);
    this.#cap = options.maxConcurrentTools ?? Number.POSITIVE_INFINITY;
    const running = new Set<CallRun>();
    this.#shared = {
      sink: options.emitter ?? nullPacketSink,
      allocator: options.citations ?? createCitationAllocator({ startAt: options.startCitationNumber ?? 1 }),
      options,
      defaultTimeoutMs: options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      running,
      deadlines: createDeadlineTimer(running),
      responses: new Map(),
      citations: new Map(),
    };
    this.#onTurnAbort = () => {
      for (const entry of [...running]) entry.abort(options.signal?.reason);
    };
    options.signal?.addEventListener('abort', this.#onTurnAbort);
  }

  /** True when the call would be merged with others of its tool, so it should wait for `settle`. */
  isMergeable(call: ToolCall): boolean {
    return (this.#shared.options.mergeableFields ?? MERGEABLE_TOOL_FIELDS).has(call.name);
  }

  /** Starts a call now (behind its concurrency class), or answers it at once when unknown or over the cap. */
  add(call: ToolCall): void {
    if (this.#settled)
      throw new ToolbusError({ code: 'batch_settled', message: 'This tool batch is settled.' });
    if (this.#added.has(call.id)) throw duplicateIdError(call.id);
    this.#added.add(call.id);
    const tool = this.#toolsByName.get(call.name);
    const responses = this.#shared.responses;
    if (!tool) {
      responses.set(call.id, unknownToolResult(call, this.#toolsByName));
    } else if (this.#runnableCount >= this.#cap) {
      responses.set(call.id, overCapResult(call, this.#cap));
    } else {
      this.#runnableCount += 1;
      const shared = this.#shared;
      this.#scheduler.schedule(
        call.name,
        tool.concurrency ?? 'parallel',
        () => new Promise<void>((resolve) => new CallRun(call, tool, shared, resolve).start()),
      );
    }
  }

  /**
   * Adds the calls of `calls` not added yet (merging mergeable ones), waits for every call, and returns one
   * result per call of `calls`, in that order.
   */
  async settle(calls: readonly ToolCall[]): Promise<RunToolCallsResult> {
    assertUniqueIds(calls);
    const options = this.#shared.options;
    const pending = calls.filter((call) => !this.#added.has(call.id));
    const { calls: mergedCalls, mergedInto } = mergeToolCalls(pending, options.mergeableFields);
    const runnableAfter =
      this.#runnableCount + mergedCalls.filter((call) => this.#toolsByName.has(call.name)).length;
    const first = calls[0];
    if (first && Math.min(runnableAfter, this.#cap) > 1) {
      this.#shared.sink.emitAt(
        { turn: first.placement.turn, tab: 0, ...pathOf(first) },
        { type: 'top-level-branching', branches: Math.min(runnableAfter, this.#cap) },
      );
    }
    for (const call of mergedCalls) this.add(call);
    this.#settled = true;
    try {
      await this.#scheduler.idle();
    } finally {
      options.signal?.removeEventListener('abort', this.#onTurnAbort);
      this.#shared.deadlines.stop();
    }
    return collectToolCallResults({
      calls,
      responses: this.#shared.responses,
      mergedInto,
      citations: this.#shared.citations,
      stoppingTools: options.stoppingTools ?? STOPPING_TOOLS,
    });
  }
}

function unknownToolResult(call: ToolCall, toolsByName: ReadonlyMap<string, Tool>) {
  const available = [...toolsByName.keys()];
  const list = available.length ? available.map((name) => `"${name}"`).join(', ') : 'none';
  return {
    status: 'unknown-tool' as const,
    response: failureResponse(
      'unknown-tool',
      `There is no tool named "${call.name}". Available tools: ${list}.`,
      'unknown_tool',
    ),
  };
}

function overCapResult(call: ToolCall, cap: number) {
  return {
    status: 'over-cap' as const,
    response: failureResponse(
      'over-cap',
      `Not run: at most ${cap} tool call(s) run per step, and "${call.name}" came after that. Call it again in the next step if you still need it.`,
      'over_cap',
    ),
  };
}

function indexByName(tools: readonly Tool[]): Map<string, Tool> {
  const map = new Map<string, Tool>();
  for (const tool of tools) {
    if (map.has(tool.name)) {
      throw new ToolbusError({ code: 'duplicate_tool_name', message: `Two tools are named "${tool.name}".` });
    }
    map.set(tool.name, tool);
  }
  return map;
}

function assertUniqueIds(calls: readonly ToolCall[]): void {
  const seen = new Set<string>();
  for (const call of calls) {
    if (seen.has(call.id)) throw duplicateIdError(call.id);
    seen.add(call.id);
  }
}

function duplicateIdError(id: string): ToolbusError {
  return new ToolbusError({
    code: 'duplicate_tool_call_id',
    message: `Two tool calls share the id "${id}"; every call needs its own id to get its own result.`,
  });
}

function pathOf(call: ToolCall): { path?: readonly PlacementLevel[] } {
  return call.placement.path ? { path: call.placement.path } : {};
}
