import type { ToolCallTextParser } from '../extracted-tool-call.ts';

/** The tags reasoning models (DeepSeek R1, QwQ, Qwen3, GLM, MiniMax) wrap their thinking in. */
export const thinkingTag = Object.freeze({ open: '<think>', close: '</think>' });
/** ByteDance Seed-OSS's thinking tags (its thinking budget reflections sit inside). */
const seedThinkingTag = Object.freeze({ open: '<seed:think>', close: '</seed:think>' });

/**
 * The tag Granite 3.3 wraps its answer in after its thinking (its chat template; llama.cpp's Granite format reads
 * `<think>…</think><response>…</response>`). llama.cpp's Hermes 2 Pro tests wrap a call's JSON in it too.
 */
const answerWrapperTag = Object.freeze({ open: '<response>', close: '</response>' });

/**
 * The tags that count only where they open the answer, as the server left them in the text (llama.cpp, vLLM or
 * Ollama without a reasoning parser). `<think>…</think>`: the thinking of a reasoning model. It holds no call of
 * its own (a call drafted inside it loses to the real one, see `extractToolCallsFromText`); its marker makes the
 * stream filter hand the content out as reasoning, never as answer text nor as history text. `<response>…</response>`
 * after it (or alone): a see-through wrapper, its tags hidden and its content the answer, streamed and read for
 * calls as any answer text (see `ToolCallMarkupMarker.wrapsAnswer`). Only where they open the answer: a `<think>`
 * or `<response>` tag a model writes in the middle of prose is a mention.
 */
export const thinkingBlockParser: ToolCallTextParser = {
  name: 'thinking',
  markers: [
    ...[thinkingTag, seedThinkingTag].map((tag) => ({
      open: tag.open,
      closes: [tag.close],
      reasoning: true,
      opensAnswer: true,
    })),
    {
      open: answerWrapperTag.open,
      closes: [answerWrapperTag.close],
      token: true,
      opensAnswer: true,
      wrapsAnswer: true,
    },
  ],
  detect: () => false,
  parse: () => [],
};

// Models whose chat template ends the prompt inside their thinking (`<think>\n` after the assistant's header): DeepSeek
// R1 and its distills, QwQ, Qwen3's thinking-only releases (`…-Thinking-2507`). Their answers open with thinking and
// a lone `</think>`.
const templateThinkingModels = /deepseek-r1|qwq|qwen3[\w.:-]*-thinking/;

/** Whether the chat template of `modelId` opens the model's thinking in the prompt (see `templateThinkingModels`). */
export function templateOpensThinking(modelId: string | undefined): boolean {
  return modelId !== undefined && templateThinkingModels.test(modelId.toLowerCase());
}

/**
 * Thinking the chat template opened in the prompt (DeepSeek R1-0528 and V3.1, Qwen3 thinking models, QwQ): the
 * model writes only the close, so everything before a first `</think>` that no `<think>` opened is thinking. Such
 * text was shown as it streamed (nothing marked it as thinking yet); once the step ends it is split off. A close
 * in inline code or a fence is a mention; undefined when there is no such close.
 */
export function splitTemplateOpenedThinking(
  text: string,
): { readonly thinking: string; readonly answer: string } | undefined {
  const close = text.indexOf(thinkingTag.close);
  if (close < 0) return undefined;
  const before = text.slice(0, close);
  if (before.includes(thinkingTag.open) || before.includes('`')) return undefined;
  return { thinking: before.trim(), answer: text.slice(close + thinkingTag.close.length).trim() };
}
