import { type ChatTurn, type RunChatTurnOptions, runChatTurn } from '@toolbus/core';
import { omitUndefined } from '@toolbus/spec';
import { type DeepResearchTurn, type RunDeepResearchOptions, runDeepResearch } from './run-deep-research.ts';

/** Deep Research's own options, beyond what a chat turn already takes. */
export type TurnResearchOptions = Omit<
  RunDeepResearchOptions,
  'model' | 'messages' | 'tools' | 'signal' | 'modelIndex' | 'stream'
>;

/** Options of {@link runTurn}: a chat turn's, plus the switch to Deep Research. */
export interface RunTurnOptions extends RunChatTurnOptions {
  /** Run this turn as Deep Research (`true`, or its options) instead of a chat turn. */
  readonly research?: boolean | TurnResearchOptions | undefined;
}

/**
 * The one place that decides whether a turn is research or chat (the server's chat service, the CLI and the
 * umbrella package all start turns here): without `research` this is core's `runChatTurn`; with it the turn is
 * `runDeepResearch` over the same model, messages, tools, signal and stream, with the same packet stream and
 * result promise. A chat turn's `maxCycles` bounds research's orchestrator cycles unless its limits say
 * otherwise; the chat-only options (files, hooks, recovery, tool search) do not apply to research, and a system
 * message is not read by it (research brings its own prompt per step). It lives here, not in core, because
 * research depends on core (docs/decisions/deep-research.md).
 */
export function runTurn(
  options: RunTurnOptions & { readonly research: true | TurnResearchOptions },
): DeepResearchTurn;
export function runTurn(options: RunTurnOptions): ChatTurn;
export function runTurn(options: RunTurnOptions): ChatTurn {
  const { research, ...chat } = options;
  if (!research) return runChatTurn(chat);
  const own = research === true ? {} : research;
  const cycles =
    chat.maxCycles === undefined
      ? {}
      : { orchestratorCycles: chat.maxCycles, orchestratorCyclesReasoning: chat.maxCycles };
  return runDeepResearch({
    ...own,
    ...(chat.maxCycles === undefined ? {} : { limits: { ...cycles, ...own.limits } }),
    model: chat.model,
    messages: chat.messages,
    ...omitUndefined({
      tools: chat.tools,
      signal: chat.signal,
      modelIndex: chat.modelIndex,
      stream: chat.stream,
    }),
  });
}
