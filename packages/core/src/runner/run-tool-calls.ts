import type { PlacementLevel, Tool, ToolCall, ToolResponse } from '@toolbus/spec';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import { createCitationAllocator } from '../citations/citation-allocator.ts';
import { nullPacketSink } from '../emitter/packet-sink.ts';
import { CallRun, type RecordedResponse, type SharedRunState } from './call-run.ts';
import { collectToolCallResults } from './collect-tool-call-results.ts';
import { ConcurrencyScheduler } from './concurrency-scheduler.ts';
import { createDeadlineTimer } from './deadline-timer.ts';
import { failureResponse } from './failure-responses.ts';
import { mergeableFieldOf, mergeToolCalls } from './merge-tool-calls.ts';
import type { RunToolCallsInput, RunToolCallsOptions } from './run-tool-calls-options.ts';
import type { RunToolCallsResult } from './tool-call-outcome.ts';
import { toolEndPacket } from './tool-end-packet.ts';

/** The default per-call timeout: 10 minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Runs one cycle's tool calls: merge the calls of tools that declare a mergeable field; answer unknown tools and calls
 * over the cap without running them; start each call with its own fenced emitter, citation view, abort signal
 * and timeout; run them concurrently within their concurrency classes; turn every failure into a result the
 * model can read. Every call id the model produced gets exactly one result, in call order.
 */
export function runToolCalls(options: RunToolCallsInput): Promise<RunToolCallsResult> {
  // The input is the batch's options as it is (no copy without `calls` and `tools`: this is the hot path).
  return new ToolCallBatch(options.tools, options).settle(options.calls);
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
  // Calls abandoned while still queued: answered with this instead of being started.
  readonly #abandoned = new Map<string, ToolResponse>();
  readonly #cap: number;
  /** Runnable calls per tool name, kept only for tools that declare `maxCallsPerCycle`. */
  readonly #perToolCount = new Map<string, number>();
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
      ended: new Set(),
    };
    this.#onTurnAbort = () => {
      for (const entry of [...running]) entry.abort(options.signal?.reason);
    };
    options.signal?.addEventListener('abort', this.#onTurnAbort);
  }

  /**
   * True when the call would be merged with others of its tool (the tool declares a `mergeableField` and the
   * call's arguments can be merged), so it should wait for `settle`.
   */
  isMergeable(call: ToolCall): boolean {
    return mergeableFieldOf(call, this.#toolsByName.get(call.name)) !== undefined;
  }

  /** Starts a call now (behind its concurrency class), or answers it at once when unknown or over the cap. */
  add(call: ToolCall): void {
    if (this.#settled)
      throw new ToolbusError({ code: 'batch_settled', message: 'This tool batch is settled.' });
    if (this.#added.has(call.id)) throw duplicateIdError(call.id);
    this.#added.add(call.id);
    const tool = this.#toolsByName.get(call.name);
    const answerNow = (recorded: RecordedResponse): void => {
      this.#shared.responses.set(call.id, recorded);
      this.#shared.ended.add(call.id);
      this.#shared.sink.emitAt(call.placement, toolEndPacket(call, recorded.status, recorded.response, 0));
    };
    if (!tool) {
      answerNow(unknownToolResult(call, this.#toolsByName));
    } else if (this.#runnableCount >= this.#cap) {
      answerNow(overCapResult(call, this.#cap));
    } else if (tool.maxCallsPerCycle !== undefined && this.#perTool(call.name) >= tool.maxCallsPerCycle) {
      answerNow(overCapResult(call, tool.maxCallsPerCycle, call.name));
    } else {
      this.#runnableCount += 1;
      if (tool.maxCallsPerCycle !== undefined)
        this.#perToolCount.set(call.name, this.#perTool(call.name) + 1);
      const shared = this.#shared;
      this.#scheduler.schedule(call.name, tool.concurrency ?? 'parallel', () => {
        const abandoned = this.#abandoned.get(call.id);
        if (abandoned === undefined)
          return new Promise<void>((resolve) => new CallRun(call, tool, shared, resolve).start());
        new CallRun(call, tool, shared, () => {}).refuse(abandoned);
        return Promise.resolve();
      });
    }
  }

  /**
   * Stops the calls of `calls` that were started early (added while the model was still streaming) and answers
   * each with `response`, for a step that turned out bad after they started. Returns the ids it answered; calls
   * not added yet are the caller's to answer.
   */
  abandon(calls: readonly ToolCall[], response: (call: ToolCall) => ToolResponse): ReadonlySet<string> {
    const answered = new Set<string>();
    for (const call of calls) {
      if (!this.#added.has(call.id)) continue;
      answered.add(call.id);
      const running = [...this.#shared.running].find((entry) => entry.call.id === call.id);
      if (running !== undefined) running.stopWith(response(call));
      // Queued behind its concurrency class: it will see the answer and not start.
      else if (!this.#shared.responses.has(call.id)) this.#abandoned.set(call.id, response(call));
    }
    return answered;
  }

  /**
   * Adds the calls of `calls` not added yet (merging mergeable ones), waits for every call, and returns one
   * result per call of `calls`, in that order.
   */
  async settle(calls: readonly ToolCall[]): Promise<RunToolCallsResult> {
    let mergedCalls: readonly ToolCall[];
    let mergedInto: ReadonlyMap<string, string>;
    try {
      if (this.#settled)
        throw new ToolbusError({ code: 'batch_settled', message: 'This tool batch is settled.' });
      assertUniqueIds(calls);
      const pending = calls.filter((call) => !this.#added.has(call.id));
      ({ calls: mergedCalls, mergedInto } = mergeToolCalls(pending, this.#toolsByName));
    } catch (error) {
      // Refused up front: nothing will collect the calls already started, so they are stopped, and nothing of
      // the batch stays attached to the caller's signal.
      if (!this.#settled) this.#release(error);
      throw error;
    }
    const runnableAfter = this.#runnableCount + this.#runnableOf(mergedCalls);
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
      this.#shared.options.signal?.removeEventListener('abort', this.#onTurnAbort);
      this.#shared.deadlines.stop();
    }
    const result = collectToolCallResults({
      calls,
      responses: this.#shared.responses,
      mergedInto,
      citations: this.#shared.citations,
      toolsByName: this.#toolsByName,
    });
    // Calls merged into another end here, with what they were answered: every call id gets its `tool-end`.
    for (const outcome of result.outcomes) {
      if (this.#shared.ended.has(outcome.call.id)) continue;
      this.#shared.ended.add(outcome.call.id);
      this.#shared.sink.emitAt(
        outcome.call.placement,
        toolEndPacket(outcome.call, outcome.status, outcome.response, 0),
      );
    }
    return result;
  }

  /** How many calls of `name` were started this cycle (counted for tools with `maxCallsPerCycle` only). */
  #perTool(name: string): number {
    return this.#perToolCount.get(name) ?? 0;
  }

  /** How many of `calls` would run when added: known tools, within their own per-cycle limits. */
  #runnableOf(calls: readonly ToolCall[]): number {
    let perTool: Map<string, number> | undefined;
    let runnable = 0;
    for (const call of calls) {
      const tool = this.#toolsByName.get(call.name);
      if (!tool) continue;
      const cap = tool.maxCallsPerCycle;
      if (cap !== undefined) {
        perTool ??= new Map(this.#perToolCount);
        const count = perTool.get(call.name) ?? 0;
        if (count >= cap) continue;
        perTool.set(call.name, count + 1);
      }
      runnable += 1;
    }
    return runnable;
  }

  /** Ends a batch that will not be settled: stops its running calls and detaches it from the caller's signal. */
  #release(reason: unknown): void {
    this.#settled = true;
    this.#shared.options.signal?.removeEventListener('abort', this.#onTurnAbort);
    for (const entry of [...this.#shared.running]) entry.abort(reason);
    this.#shared.deadlines.stop();
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
      'unknown-tool',
    ),
  };
}

function overCapResult(call: ToolCall, cap: number, ofTool?: string) {
  const what = ofTool === undefined ? 'tool call(s)' : `tool call(s) of "${ofTool}"`;
  return {
    status: 'over-cap' as const,
    response: failureResponse(
      'over-cap',
      `Not run: at most ${cap} ${what} run per step, and "${call.name}" came after that. Call it again in the next step if you still need it.`,
      'over-cap',
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
  return omitUndefined({ path: call.placement.path });
}
