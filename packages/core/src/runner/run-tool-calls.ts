import type {
  ChatFile,
  ChatMessage,
  CitedDocument,
  ConcurrencyClass,
  PlacementLevel,
  Tool,
  ToolCall,
  ToolResponse,
  ToolRunContext,
} from '@toolbus/spec';
import { ToolbusError } from '@toolbus/spec';
import {
  type CitationAllocatorView,
  createCitationAllocator,
  type TurnCitationAllocator,
} from '../citations/citation-allocator.ts';
import { createFencedToolEmitter, type FencedToolEmitter } from '../emitter/fenced-tool-emitter.ts';
import { nullPacketSink, type PacketSink } from '../emitter/packet-sink.ts';
import { MERGEABLE_TOOL_FIELDS, type MergeableField, STOPPING_TOOLS } from '../registry/built-in-tools.ts';
import { classifyToolFailure, failureResponse } from './failure-responses.ts';
import { mergeToolCalls } from './merge-tool-calls.ts';
import type { ToolCallSpan, ToolCallStatus, ToolRunHooks } from './tool-run-hooks.ts';

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

interface RecordedResponse {
  readonly status: ToolCallStatus;
  readonly response: ToolResponse;
  readonly ranAs?: ToolCall;
}

interface SharedRunState {
  readonly sink: PacketSink;
  readonly allocator: TurnCitationAllocator;
  readonly options: RunToolCallsOptions;
  readonly defaultTimeoutMs: number;
  readonly running: Set<CallRun>;
  readonly deadlines: { track(entry: CallRun): void; stop(): void };
  readonly responses: Map<string, RecordedResponse>;
  readonly citations: Map<number, CitedDocument>;
}

/**
 * One call from start to recorded result. A class rather than closures because one is made per call, and the
 * runner's overhead per call is part of every turn's latency (see BENCHMARKS.md).
 */
class CallRun {
  readonly call: ToolCall;
  readonly tool: Tool;
  readonly deadline: number;
  readonly emitter: FencedToolEmitter;
  readonly citations: CitationAllocatorView;
  readonly placement: ToolCall['placement'];
  readonly userQuery: string;
  readonly history: readonly ChatMessage[];
  readonly files: readonly ChatFile[];
  readonly userId?: string;
  readonly extras: Readonly<Record<string, unknown>>;
  readonly #shared: SharedRunState;
  readonly #resolve: () => void;
  readonly #startedAt: number;
  readonly #controller = new AbortController();
  #span: ToolCallSpan | undefined;

  constructor(call: ToolCall, tool: Tool, shared: SharedRunState, resolve: () => void) {
    const options = shared.options;
    this.call = call;
    this.tool = tool;
    this.#shared = shared;
    this.#resolve = resolve;
    this.#startedAt = performance.now();
    this.deadline = this.#startedAt + (tool.timeoutMs ?? shared.defaultTimeoutMs);
    this.emitter = createFencedToolEmitter(shared.sink, call.placement);
    this.citations = shared.allocator.view();
    this.placement = call.placement;
    this.userQuery = options.userQuery ?? '';
    this.history = options.history ?? emptyList;
    this.files = options.files ?? emptyList;
    if (options.userId !== undefined) this.userId = options.userId;
    this.extras = options.extras ?? emptyExtras;
  }

  /** The context the tool sees: a plain object of data properties, so a tool may spread it safely. */
  #context(): ToolRunContext {
    const context: ToolRunContext = {
      placement: this.placement,
      emitter: this.emitter,
      signal: this.#controller.signal,
      userQuery: this.userQuery,
      history: this.history,
      files: this.files,
      citations: this.citations,
      extras: this.extras,
    };
    if (this.userId !== undefined) (context as { userId?: string }).userId = this.userId;
    return context;
  }

  start(): void {
    const shared = this.#shared;
    try {
      this.#span = shared.options.hooks?.onToolCallStart?.({ call: this.call, tool: this.tool });
    } catch {
      this.#span = undefined;
    }
    shared.running.add(this);
    const turnSignal = shared.options.signal;
    if (turnSignal?.aborted) {
      this.abort(turnSignal.reason);
      return;
    }
    shared.deadlines.track(this);
    try {
      this.tool.emitStart(this.call.placement, this.emitter, this.call);
      this.tool.run(this.call, this.#context()).then(
        (response) => this.#succeed(response),
        (thrown) => this.#fail(thrown),
      );
    } catch (thrown) {
      this.#fail(thrown);
    }
  }

  /** Records the result once; later calls (a late tool after its timeout) change nothing. */
  finish(status: ToolCallStatus, response: ToolResponse, error?: unknown): void {
    const shared = this.#shared;
    if (!shared.running.delete(this)) return;
    this.emitter.emit(sectionEnd);
    this.emitter.fence();
    this.citations.fence();
    for (const [number, document] of this.citations.assigned) shared.citations.set(number, document);
    shared.responses.set(this.call.id, { status, response, ranAs: this.call });
    if (this.#span) {
      try {
        this.#span.end({ status, response, error, durationMs: performance.now() - this.#startedAt });
      } catch {
        // Tracing never fails a turn.
      }
    }
    this.#resolve();
  }

  abort(reason: unknown): void {
    this.#controller.abort(reason);
    const timedOut = reason instanceof ToolbusError && reason.code === 'tool_timeout';
    if (timedOut) {
      const seconds = Math.round((this.deadline - this.#startedAt) / 1000);
      this.finish(
        'timeout',
        failureResponse(
          'timeout',
          `"${this.call.name}" did not finish within ${seconds} s and was stopped. Try a smaller request, or answer with what you have.`,
          'tool_timeout',
        ),
      );
    } else {
      this.finish(
        'aborted',
        failureResponse('aborted', 'The run was cancelled before this tool finished.', 'aborted'),
      );
    }
  }

  #succeed(response: unknown): void {
    if (isToolResponse(response)) this.finish('success', response);
    else this.#fail(new TypeError(`Tool "${this.call.name}" returned something that is not a ToolResponse.`));
  }

  #fail(thrown: unknown): void {
    if (!this.#shared.running.has(this)) return;
    const failure = classifyToolFailure(this.call, thrown);
    if (failure.errorPacket) this.emitter.emit({ type: 'error', ...failure.errorPacket });
    this.finish(failure.status, failure.response, thrown);
  }
}

const sectionEnd = { type: 'section-end' } as const;
const emptyList: readonly never[] = [];
const emptyExtras: Readonly<Record<string, unknown>> = {};

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
    return collectResults({
      calls,
      responses: this.#shared.responses,
      mergedInto,
      citations: this.#shared.citations,
      stoppingTools: options.stoppingTools ?? STOPPING_TOOLS,
    });
  }
}

/**
 * Starts calls respecting their classes: `parallel` at once; `serial` after the previous call of the same tool;
 * `exclusive` after everything started before it, and before anything after it. Calls with nothing to wait for
 * start synchronously (the common case, kept cheap).
 */
class ConcurrencyScheduler {
  #barrier: Promise<void> | undefined;
  #sinceBarrier: Promise<void>[] = [];
  readonly #serialTails = new Map<string, Promise<void>>();
  readonly #all: Promise<void>[] = [];

  schedule(name: string, concurrency: ConcurrencyClass, start: () => Promise<void>): void {
    let done: Promise<void>;
    if (concurrency === 'exclusive') {
      const before = this.#barrier ? [this.#barrier, ...this.#sinceBarrier] : this.#sinceBarrier;
      done = before.length > 0 ? Promise.all(before).then(start) : start();
      this.#barrier = done;
      this.#sinceBarrier = [];
    } else if (concurrency === 'serial') {
      const tail = this.#serialTails.get(name);
      const before = [this.#barrier, tail].filter((gate): gate is Promise<void> => gate !== undefined);
      done = before.length > 0 ? Promise.all(before).then(start) : start();
      this.#serialTails.set(name, done);
      this.#sinceBarrier.push(done);
    } else {
      done = this.#barrier ? this.#barrier.then(start) : start();
      this.#sinceBarrier.push(done);
    }
    this.#all.push(done);
  }

  async idle(): Promise<void> {
    await Promise.all(this.#all);
  }
}

function collectResults(input: {
  calls: readonly ToolCall[];
  responses: Map<string, RecordedResponse>;
  mergedInto: ReadonlyMap<string, string>;
  citations: Map<number, CitedDocument>;
  stoppingTools: ReadonlySet<string>;
}): RunToolCallsResult {
  const outcomes: ToolCallOutcome[] = [];
  const messages: ChatMessage[] = [];
  let stopped = false;
  for (const call of input.calls) {
    const target = input.mergedInto.get(call.id);
    let outcome: ToolCallOutcome;
    if (target !== undefined) {
      const ran = input.responses.get(target);
      const response: ToolResponse = {
        llmFacing: `This call was merged into call ${target} (same tool, combined arguments); its results are reported there.`,
        rich: { type: 'merged', intoCallId: target },
      };
      outcome = ran?.ranAs
        ? { call, ranAs: ran.ranAs, status: 'merged', response }
        : { call, status: 'merged', response };
    } else {
      const recorded = input.responses.get(call.id) as RecordedResponse;
      outcome = recorded.ranAs
        ? { call, ranAs: recorded.ranAs, status: recorded.status, response: recorded.response }
        : { call, status: recorded.status, response: recorded.response };
      if (recorded.status === 'success' && input.stoppingTools.has(call.name)) stopped = true;
    }
    outcomes.push(outcome);
    messages.push({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: outcome.response.llmFacing,
    });
  }
  const citations = new Map([...input.citations].sort((left, right) => left[0] - right[0]));
  return { outcomes, messages, citations, stopped };
}

/**
 * One timer for all running calls instead of one per call: it fires at the earliest deadline, stops what
 * expired, and re-arms for the next. Calls that finish first cost nothing.
 */
function createDeadlineTimer(running: Set<CallRun>) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Number.POSITIVE_INFINITY;
  const arm = (deadline: number) => {
    if (timer !== undefined && deadline >= armedFor) return;
    if (timer !== undefined) clearTimeout(timer);
    armedFor = deadline;
    timer = setTimeout(fire, Math.max(0, deadline - performance.now()));
  };
  const fire = () => {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let nextDeadline = Number.POSITIVE_INFINITY;
    for (const entry of [...running]) {
      if (entry.deadline <= now + 1) {
        entry.abort(
          new ToolbusError({ code: 'tool_timeout', message: `Tool "${entry.call.name}" timed out.` }),
        );
      } else if (entry.deadline < nextDeadline) {
        nextDeadline = entry.deadline;
      }
    }
    if (nextDeadline !== Number.POSITIVE_INFINITY) arm(nextDeadline);
  };
  return {
    track(entry: CallRun) {
      arm(entry.deadline);
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
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

function isToolResponse(value: unknown): value is ToolResponse {
  return typeof value === 'object' && value !== null && typeof (value as ToolResponse).llmFacing === 'string';
}

function pathOf(call: ToolCall): { path?: readonly PlacementLevel[] } {
  return call.placement.path ? { path: call.placement.path } : {};
}
