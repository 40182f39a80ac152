import type {
  ChatFile,
  ChatMessage,
  CitedDocument,
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
import type { RunToolCallsOptions } from './run-tool-calls.ts';
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

/** True for an object with a string `llmFacing`: what every tool must return. */
export function isToolResponse(value: unknown): value is ToolResponse {
  return typeof value === 'object' && value !== null && typeof (value as ToolResponse).llmFacing === 'string';
}
