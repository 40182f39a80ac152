import { type ChatTurn, type RunChatTurnOptions, runChatTurn as runCoreChatTurn } from '@toolbus/core';
import { type RunDeepResearchOptions, runDeepResearch } from '@toolbus/research';
import { omitUndefined } from '@toolbus/spec';

/** Deep Research's own options, beyond what a chat turn already takes. */
export type ChatTurnResearchOptions = Omit<
  RunDeepResearchOptions,
  'model' | 'messages' | 'tools' | 'signal' | 'modelIndex' | 'stream'
>;

/** Options of the umbrella's {@link runChatTurn}: a chat turn's, plus the switch to Deep Research. */
export interface RunChatTurnWithResearchOptions extends RunChatTurnOptions {
  /** Run this turn as Deep Research (`true`, or its options) instead of a chat turn. */
  readonly research?: boolean | ChatTurnResearchOptions;
}

/**
 * `runChatTurn` with a `research` switch, so a UI or the CLI changes mode by a flag: without it this is core's
 * chat turn; with it the turn is `runDeepResearch` over the same model, messages and tools, with the same packet
 * stream and result promise. The switch lives here, not in core, because research depends on core
 * (docs/decisions/deep-research.md).
 */
export function runChatTurn(options: RunChatTurnWithResearchOptions): ChatTurn {
  const { research, ...chat } = options;
  if (!research) return runCoreChatTurn(chat);
  return runDeepResearch({
    ...(research === true ? {} : research),
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
