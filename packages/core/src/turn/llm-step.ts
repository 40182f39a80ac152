import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ChatMessage, PacketObject, Tool, ToolbusError, ToolCall, ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { TurnCitationAllocator } from '../citations/citation-allocator.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';
import type { ModelFinishReason, ModelStreamEvent } from '../llm/model-stream-event.ts';
import { type StreamModelStepOptions, streamModelStepTo } from '../llm/stream-model-step.ts';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';
import type { TextCutWhileStreaming } from '../recovery/calls-cut-while-streaming.ts';
import type { ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { parseToolArguments } from '../recovery/parse-tool-arguments.ts';
import type { ToolCallBatch } from '../runner/run-tool-calls.ts';
import { AnswerStreamFilter } from '../streaming/answer-stream-filter.ts';
import { type ArgumentDeltas, createArgumentDeltaStreamer } from '../streaming/argument-delta-streamer.ts';
import { strippedHarmonyRestorerFor } from '../streaming/stripped-harmony-restorer.ts';
import { AnswerWriter } from './answer-writer.ts';
import { hasCompleteArguments } from './cut-off-tool-calls.ts';
import type { StepPlacement } from './step-placement.ts';
import { StepReasoning } from './step-reasoning.ts';

/** Options for {@link runLlmStep}. */
export interface RunLlmStepOptions {
  readonly model: LanguageModelV4;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly Tool[];
  readonly toolChoice: ModelToolChoice;
  readonly turn: number;
  readonly placement: StepPlacement;
  readonly sink: PacketSink;
  readonly citations: TurnCitationAllocator;
  /** Citation numbers already announced in this turn (a `citation-info` goes out once per document). */
  readonly announcedDocuments: Set<string>;
  /** Complete native calls of non-mergeable tools start here while the model is still streaming. */
  readonly batch: ToolCallBatch | undefined;
  readonly signal?: AbortSignal;
  readonly stream?: Partial<
    Omit<StreamModelStepOptions, 'model' | 'messages' | 'tools' | 'toolChoice' | 'signal'>
  >;
  /** Whether visible text of this step is the final answer's (citation packets are sent for it). */
  readonly citing: boolean;
  /** Dialect parsers whose markup is hidden and whose calls are held back (default: all). */
  readonly parsers?: readonly ToolCallTextParser[];
  /** Dialects tried first when cutting held-back calls out (the model's profile). */
  readonly preferredDialects?: readonly string[];
  /**
   * A tool whose `reasoning` argument is the model's thinking (`think_tool`, for models without native
   * reasoning): its argument fragments stream as reasoning packets, decoded by the think-tool processor, and the
   * call itself still comes back as a tool call.
   */
  readonly reasoningTool?: string;
}

/** What one model step produced. */
export interface LlmStepResult {
  /** The visible answer text (tool-call markup removed). */
  readonly answer: string;
  /** Everything the model wrote as text, markup included: the source for text recovery. */
  readonly rawAnswer: string;
  /**
   * The texts the answer filter cut out of the answer because recovery read calls in them: recovery counts their
   * calls even when its reading of the whole raw answer misses them (see `withCallsCutWhileStreaming`).
   */
  readonly cutWhileStreaming?: readonly TextCutWhileStreaming[];
  readonly reasoning: string;
  /** Native tool calls, in the order the model started them. */
  readonly toolCalls: readonly ToolCall[];
  /**
   * The calls of `toolCalls` the output token limit cut off: the step ended on `length` while their arguments
   * were still incomplete JSON. They were not started and must not run (see `answerCutOffCalls`).
   */
  readonly cutOffToolCalls: readonly ToolCall[];
  /**
   * The calls of `toolCalls` whose argument text was not one complete JSON value although the step did not end on
   * the token limit: their `arguments` are a repair. The chat loop runs them (validation catches most); an agent
   * that must not act on a guess answers them with `malformedToolCallMessage`.
   */
  readonly malformedToolCalls: readonly ToolCall[];
  readonly finishReason: ModelFinishReason | undefined;
  readonly error?: ToolbusError;
  /** The turn index after this step (reasoning moves the answer to the next turn). */
  readonly nextTurn: number;
  /** Whether a `message-start` went out in this step. */
  readonly answerStarted: boolean;
}

/**
 * One model step: streams the model's output as packets while keeping the raw text for recovery. Reasoning goes
 * out as reasoning packets and closes before the answer or the first tool call (which then sit one turn later);
 * visible text goes through the answer filter (tool-call markup hidden, an answer that starts like a bare call
 * held back until it is known not to be one) and the answer writer (citations); argument fragments of tools
 * that opt in stream as `tool-argument-delta`; each native call starts running as soon as it is complete.
 */
export async function runLlmStep(options: RunLlmStepOptions): Promise<LlmStepResult> {
  const definitions: ToolDefinition[] = options.tools.map((tool) => tool.definition());
  const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const filter = new AnswerStreamFilter({
    tools: definitions,
    ...omitUndefined({ parsers: options.parsers, preferredDialects: options.preferredDialects }),
  });
  // gpt-oss behind a server that strips Harmony's tokens: they are put back before anything reads the text.
  const restorer = strippedHarmonyRestorerFor(options.preferredDialects);
  const writer = new AnswerWriter({
    sink: options.sink,
    citations: options.citations,
    announcedDocuments: options.announcedDocuments,
    citing: options.citing,
  });
  const argumentStreamer = createArgumentDeltaStreamer();
  let turn = options.turn;
  let rawAnswer = '';
  let answer = '';
  let finishReason: ModelFinishReason | undefined;
  let error: ToolbusError | undefined;
  const calls = new Map<number, { id: string; name: string; tab: number }>();
  const finished: ToolCall[] = [];
  // Calls whose arguments were incomplete when the provider closed them: started only once the finish shows
  // they were not cut off by the token limit (then `settle` starts them).
  const incomplete: ToolCall[] = [];
  const usedIds = new Set<string>();

  const emit = (tab: number, obj: PacketObject) =>
    options.sink.emitAt(options.placement.at({ turn, tab }), obj);
  const reasoning = new StepReasoning({
    emit: (obj) => emit(0, obj),
    onClose: () => {
      turn += 1;
    },
    mayOpen: () => !writer.started && calls.size === 0,
  });
  const emitVisible = (text: string) => {
    if (!text) return;
    reasoning.close();
    answer += text;
    writer.write(options.placement.at({ turn, tab: 0 }), text);
  };

  // The tool-call cases that wait for the argument streamer: async, so the step's reader waits for them alone.
  const streamArgumentDeltas = async (
    call: { id: string; name: string; tab: number },
    index: number,
    delta: string,
  ) => {
    const deltas = await argumentStreamer.push(index, delta);
    emitArgumentDeltas(emit, call, deltas, toolsByName.get(call.name)?.displayName);
  };
  const endCall = async (event: Extract<ModelStreamEvent, { type: 'tool-call-end' }>) => {
    reasoning.endCall(event.index, event.rawArguments, event.name === options.reasoningTool);
    let call = calls.get(event.index);
    if (!call) {
      call = {
        id: uniqueCallId(event.id, usedIds),
        name: event.name,
        tab: calls.size + (writer.started ? 1 : 0),
      };
      calls.set(event.index, call);
    }
    if (toolsByName.get(call.name)?.streamsArgumentDeltas) {
      emitArgumentDeltas(emit, call, await argumentStreamer.end(event.index), undefined);
    }
    const toolCall: ToolCall = {
      id: call.id,
      name: call.name,
      arguments: parseToolArguments(event.rawArguments),
      placement: options.placement.at({ turn, tab: call.tab }),
    };
    finished.push(toolCall);
    if (!hasCompleteArguments(event.rawArguments)) incomplete.push(toolCall);
    else if (options.batch && !options.batch.isMergeable(toolCall)) options.batch.add(toolCall);
  };
  // Each event handled as the step's reader hands it over (no async generator between them: this runs per token).
  const onEvent = (event: ModelStreamEvent): Promise<void> | undefined => {
    switch (event.type) {
      case 'reasoning-delta':
        reasoning.add(event.text);
        return undefined;
      case 'text-delta': {
        const text = restorer ? restorer.process(event.text) : event.text;
        rawAnswer += text;
        const visible = filter.process(text);
        // Reasoning the model wrote into its text (Harmony's analysis channel, from a server that does not
        // parse Harmony) is reasoning like the native kind.
        reasoning.add(filter.takeReasoning());
        emitVisible(visible);
        return undefined;
      }
      case 'tool-call-start': {
        reasoning.close();
        const id = uniqueCallId(event.id, usedIds);
        calls.set(event.index, { id, name: event.name, tab: calls.size + (writer.started ? 1 : 0) });
        if (event.name === options.reasoningTool) reasoning.openThinking(event.index);
        return undefined;
      }
      case 'tool-call-delta': {
        const call = calls.get(event.index);
        reasoning.think(event.index, event.argumentsDelta);
        if (!call || !toolsByName.get(call.name)?.streamsArgumentDeltas) return undefined;
        return streamArgumentDeltas(call, event.index, event.argumentsDelta);
      }
      case 'tool-call-end':
        return endCall(event);
      case 'finish':
        finishReason = event.finishReason;
        return undefined;
      case 'error':
        error = event.error;
        return undefined;
    }
  };
  await streamModelStepTo(
    {
      ...options.stream,
      model: options.model,
      messages: options.messages,
      tools: definitions,
      toolChoice: definitions.length > 0 ? options.toolChoice : 'none',
      ...omitUndefined({ signal: options.signal }),
    },
    onEvent,
  );
  const restored = restorer?.flush() ?? '';
  rawAnswer += restored;
  const rest = filter.process(restored) + filter.flush();
  reasoning.add(filter.takeReasoning());
  emitVisible(rest);
  reasoning.close();
  return {
    answer,
    rawAnswer,
    cutWhileStreaming: filter.takeCuts(),
    reasoning: reasoning.text,
    toolCalls: finished,
    cutOffToolCalls: finishReason === 'length' ? incomplete : [],
    malformedToolCalls: finishReason === 'length' ? [] : incomplete,
    finishReason,
    ...omitUndefined({ error }),
    nextTurn: turn + 1,
    answerStarted: writer.started,
  };
}

/** The `tool-argument-delta` of a call whose tool streams its arguments, when `deltas` holds any. */
function emitArgumentDeltas(
  emit: (tab: number, obj: PacketObject) => void,
  call: { readonly id: string; readonly name: string; readonly tab: number },
  deltas: ArgumentDeltas,
  displayName: string | undefined,
): void {
  if (Object.keys(deltas).length === 0) return;
  emit(call.tab, {
    type: 'tool-argument-delta',
    toolCallId: call.id,
    toolName: call.name,
    ...omitUndefined({ displayName }),
    argumentDeltas: deltas,
  });
}

/** Models sometimes omit ids or repeat them; every call needs its own id to get its own result. */
function uniqueCallId(id: string, used: Set<string>): string {
  let candidate = id && !used.has(id) ? id : `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  while (used.has(candidate)) candidate = `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  used.add(candidate);
  return candidate;
}
