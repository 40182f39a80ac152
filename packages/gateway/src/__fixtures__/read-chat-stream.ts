// Reads a streamed Chat Completions answer the way a client assembles it: text, reasoning, the tool calls put
// together from their deltas by index, and the finish reason.
import type OpenAI from 'openai';

/** One streamed answer, assembled. */
export interface StreamedChat {
  readonly content: string;
  /** `reasoning_content`, which the official types do not declare. */
  readonly reasoning: string;
  /** By index: the id, the name and the arguments, each concatenated from every delta that carried them. */
  readonly calls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  /** How many chunks carried a `tool_calls` field at all. */
  readonly toolCallChunks: number;
  readonly finish: string | null;
}

export async function readChatStream(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<StreamedChat> {
  let content = '';
  let reasoning = '';
  let finish: string | null = null;
  let toolCallChunks = 0;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as typeof choice.delta & { reasoning_content?: string };
    content += delta.content ?? '';
    reasoning += delta.reasoning_content ?? '';
    if (delta.tool_calls !== undefined) toolCallChunks += 1;
    for (const call of delta.tool_calls ?? []) {
      const entry = (calls[call.index] ??= { id: '', name: '', arguments: '' });
      entry.id += call.id ?? '';
      entry.name += call.function?.name ?? '';
      entry.arguments += call.function?.arguments ?? '';
    }
    finish = choice.finish_reason ?? finish;
  }
  return { content, reasoning, calls, toolCallChunks, finish };
}
