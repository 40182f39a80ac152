import {
  type ChatTurnResult,
  type PacketSink,
  type RunChatTurnOptions,
  runChatTurn,
  type TurnCycleDirective,
} from '@toolbus/core';
import type { ChatMessage, Placement, Tool, ToolCall } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { createRetypingSink, withoutStop } from './retyping-sink.ts';

/**
 * Options for {@link runNestedAgent}. The model, cancellation, concurrency cap (tool calls per step that may run at
 * once; more are answered without running), stream settings, user and extras are the nested chat turn's.
 */
export interface NestedAgentOptions
  extends Pick<
    RunChatTurnOptions,
    'model' | 'signal' | 'maxConcurrentTools' | 'stream' | 'userId' | 'extras'
  > {
  /** The agent's own conversation: its system prompt and its task. It sees nothing else. */
  readonly messages: readonly ChatMessage[];
  /** Its tools, the think tool and the stopping tool included. */
  readonly tools: readonly Tool[];
  /** Where its packets go (the calling tool's emitter) and the placement they nest under. */
  readonly sink: PacketSink;
  readonly placement: Placement;
  /** Cycles that run tools other than the think tool. */
  readonly maxCycles: number;
  /** The think tool: its calls stream as reasoning, do not use work cycles, and are capped on their own. */
  readonly thinkTool?: { readonly name: string; readonly maxCycles: number };
  /** No new cycle starts at or after this time (`Date.now()` ms): the agent wraps up with what it has. */
  readonly wrapUpAt?: number;
  /** Output tokens per step. */
  readonly stepTokens?: number;
}

/**
 * The one loop a sub-agent runs (a research agent; later the coding agent): `runChatTurn` itself, nested under the
 * calling tool's placement, so its steps, its parallel tool calls, recovery and fencing are a chat turn's. What
 * makes it an agent is decided before each cycle: a tool call is required, think calls are capped separately
 * from work cycles, and a wrap-up time ends the loop. The loop's own `stop` packet is dropped: the caller ends
 * the section.
 */
export function runNestedAgent(options: NestedAgentOptions): Promise<ChatTurnResult> {
  const think = options.thinkTool;
  const toolsWithoutThink = think ? options.tools.filter((tool) => tool.name !== think.name) : options.tools;
  let workCycles = 0;
  let thinkCycles = 0;
  const countCycle = (calls: readonly ToolCall[]) => {
    if (calls.length === 0) return;
    if (think && calls.every((call) => call.name === think.name)) thinkCycles += 1;
    else workCycles += 1;
  };
  const turn = runChatTurn({
    model: options.model,
    messages: options.messages,
    tools: options.tools,
    toolChoice: 'required',
    // The cycle hook ends the loop; this bound is only a backstop (+1: the loop's last cycle offers no tools).
    maxCycles: options.maxCycles + (think?.maxCycles ?? 0) + 1,
    parent: {
      sink: createRetypingSink({ target: options.sink, retype: withoutStop }),
      placement: options.placement,
    },
    ...omitUndefined({
      reasoningTool: think?.name,
      signal: options.signal,
      maxConcurrentTools: options.maxConcurrentTools,
      userId: options.userId,
      extras: options.extras,
    }),
    stream: {
      ...options.stream,
      ...omitUndefined({ maxOutputTokens: options.stepTokens }),
    },
    beforeCycle: ({ previousToolCalls }): TurnCycleDirective => {
      countCycle(previousToolCalls);
      if (workCycles >= options.maxCycles) return { stop: true };
      if (options.wrapUpAt !== undefined && Date.now() >= options.wrapUpAt) return { stop: true };
      if (think && thinkCycles >= think.maxCycles)
        return { tools: toolsWithoutThink, toolChoice: 'required' };
      return { toolChoice: 'required' };
    },
  });
  return turn.result;
}
