import type {
  ChatFile,
  ChatMessage,
  CitedDocument,
  RichResponse,
  Tool,
  ToolCall,
  ToolResponse,
  ToolRunContext,
} from '@toolbus/spec';
import { ToolbusError } from '@toolbus/spec';
import type { CitationAllocatorView, TurnCitationAllocator } from '../citations/citation-allocator.ts';
import { createFencedToolEmitter, type FencedToolEmitter } from '../emitter/fenced-tool-emitter.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';
import { classifyToolFailure, failureResponse } from './failure-responses.ts';
import type { RunToolCallsOptions } from './run-tool-calls-options.ts';
import { toolEndPacket } from './tool-end-packet.ts';
import type { ToolCallSpan, ToolCallStatus } from './tool-run-hooks.ts';

/** A call's recorded result. */
export interface RecordedResponse {
  readonly status: ToolCallStatus;
  readonly response: ToolResponse;
  readonly ranAs?: ToolCall;
}

/** What the calls of one batch share. */
export interface SharedRunState {
  readonly sink: PacketSink;
  readonly allocator: TurnCitationAllocator;
  readonly options: RunToolCallsOptions;
  readonly defaultTimeoutMs: number;
  readonly running: Set<CallRun>;
  readonly deadlines: { track(entry: CallRun): void; stop(): void };
  readonly responses: Map<string, RecordedResponse>;
  readonly citations: Map<number, CitedDocument>;
  /** Call ids whose `tool-end` packet is out: each gets exactly one. */
  readonly ended: Set<string>;
}

/**
 * One call from start to recorded result. A class rather than closures because one is made per call, and the
 * runner's overhead per call is part of every turn's latency (see BENCHMARKS.md).
 */
export class CallRun {
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
    this.deadline = this.#startedAt + timeoutOf(tool, shared.defaultTimeoutMs);
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
    const elicit = this.#shared.options.elicit;
    if (elicit !== undefined) (context as { elicit?: typeof elicit }).elicit = elicit;
    const mcpRelay = this.#shared.options.mcpRelay;
    if (mcpRelay !== undefined) (context as { mcpRelay?: typeof mcpRelay }).mcpRelay = mcpRelay;
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
      // Promise.resolve: a tool that returns a value that is not a promise, or a thenable whose `then` throws,
      // is answered like one that rejected, never left to an unhandled rejection.
      Promise.resolve(this.tool.run(this.call, this.#context())).then(
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
    const durationMs = performance.now() - this.#startedAt;
    shared.ended.add(this.call.id);
    this.emitter.emit(toolEndPacket(this.call, status, response, durationMs));
    this.emitter.emit(sectionEnd);
    this.emitter.fence();
    this.citations.fence();
    for (const [number, document] of this.citations.assigned) shared.citations.set(number, document);
    shared.responses.set(this.call.id, { status, response, ranAs: this.call });
    if (this.#span) {
      try {
        this.#span.end({ status, response, error, durationMs });
      } catch {
        // Tracing never fails a turn.
      }
    }
    this.#resolve();
  }

  /** The turn was cancelled: the tool's signal aborts with the turn's reason and the call is answered at once. */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
    this.finish(
      'aborted',
      failureResponse('aborted', 'The run was cancelled before this tool finished.', 'aborted'),
    );
  }

  /**
   * Answers the call with `response` instead of its run's result: the step that wrote it turned out bad after the
   * call had started (see `ToolCallBatch.abandon`). The tool's signal aborts; the UI gets the failure.
   */
  stopWith(response: ToolResponse): void {
    if (!this.#shared.running.has(this)) return;
    const rich = response.rich;
    const message = rich?.type === 'failure' ? rich.message : response.llmFacing;
    const code = (rich?.type === 'failure' ? rich.code : undefined) ?? 'tool_call_not_run';
    this.#controller.abort(new ToolbusError({ code, message }));
    this.emitter.emit({ type: 'error', code, message });
    this.finish('call-error', response);
  }

  /** Answers a call that never started with `response`, as {@link stopWith} answers one that did. */
  refuse(response: ToolResponse): void {
    this.#shared.running.add(this);
    this.tool.emitStart(this.call.placement, this.emitter, this.call);
    this.stopWith(response);
  }

  /** The call's deadline passed (called by the deadline timer). */
  timeOut(): void {
    this.#controller.abort(
      new ToolbusError({ code: 'timeout', message: `Tool "${this.call.name}" timed out.` }),
    );
    const seconds = Math.round((this.deadline - this.#startedAt) / 1000);
    this.finish(
      'timeout',
      failureResponse(
        'timeout',
        `"${this.call.name}" did not finish within ${seconds} s and was stopped. Try a smaller request, or answer with what you have.`,
        'timeout',
      ),
    );
  }

  #succeed(response: unknown): void {
    const copied = copyToolResponse(response);
    if (copied !== undefined) this.finish('success', copied);
    else this.#fail(new TypeError(`Tool "${this.call.name}" returned something that is not a ToolResponse.`));
  }

  #fail(thrown: unknown): void {
    if (!this.#shared.running.has(this)) return;
    const failure = classifyToolFailure(this.call, thrown);
    if (failure.errorPacket) this.emitter.emit({ type: 'error', ...failure.errorPacket });
    this.finish(failure.status, failure.response, thrown);
  }
}

/** The tool's own timeout when it is a positive number (`Infinity`: none), else the batch's default. */
function timeoutOf(tool: Tool, defaultTimeoutMs: number): number {
  const own: unknown = tool.timeoutMs;
  return typeof own === 'number' && own > 0 ? own : defaultTimeoutMs;
}

/**
 * A plain copy of what a tool returned, read once, or undefined when it is not a ToolResponse or reading it
 * throws (a Proxy, a throwing getter). The copy is what is recorded, so nothing read later (the tool message,
 * storage, the UI) can meet a getter that throws or answers differently the second time.
 */
function copyToolResponse(value: unknown): ToolResponse | undefined {
  try {
    if (typeof value !== 'object' || value === null) return undefined;
    const llmFacing: unknown = (value as ToolResponse).llmFacing;
    if (typeof llmFacing !== 'string') return undefined;
    const rich: unknown = (value as ToolResponse).rich;
    return rich === undefined ? { llmFacing } : { llmFacing, rich: rich as RichResponse };
  } catch {
    return undefined;
  }
}

const sectionEnd = { type: 'section-end' } as const;
const emptyList: readonly never[] = [];
const emptyExtras: Readonly<Record<string, unknown>> = {};
