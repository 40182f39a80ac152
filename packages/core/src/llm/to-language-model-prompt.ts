import type {
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ReasoningPart,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import type { AssistantToolCall, ChatFile, ChatMessage } from '@toolbus/spec';

/** Options for {@link toLanguageModelPrompt}. */
export interface ToLanguageModelPromptOptions {
  /** Send assistant reasoning back to the provider (providers that cannot take it drop it). Default true. */
  readonly includeReasoning?: boolean;
  /** Tool result text for a call that has none in history. */
  readonly missingResultText?: string;
}

/** Result text given to a tool call that has no result in history, so strict providers accept the request. */
export const MISSING_TOOL_RESULT_TEXT = 'No result: this tool call was not executed.';

/**
 * Converts provider-neutral history into the AI SDK's prompt, shaped so strict providers accept it: every
 * assistant tool call is followed by exactly one result, all results of one assistant message come right after it
 * in a single tool message (Anthropic turns that into one user message of `tool_result` blocks), results without a
 * call and repeated results are dropped, a call without a result gets {@link MISSING_TOOL_RESULT_TEXT}, and blank
 * text parts and blank user and assistant messages are left out (Anthropic rejects blank text blocks).
 */
export function toLanguageModelPrompt(
  messages: readonly ChatMessage[],
  options: ToLanguageModelPromptOptions = {},
): LanguageModelV4Prompt {
  const includeReasoning = options.includeReasoning ?? true;
  const missingResultText = options.missingResultText ?? MISSING_TOOL_RESULT_TEXT;
  const prompt: LanguageModelV4Prompt = [];
  // Calls of the latest assistant message still waiting for their result, in call order.
  let pending: Map<string, AssistantToolCall> = new Map();
  let results: LanguageModelV4ToolResultPart[] = [];

  const closePendingCalls = (): void => {
    if (pending.size === 0 && results.length === 0) return;
    for (const call of pending.values()) {
      results.push(toolResultPart({ toolCallId: call.id, toolName: call.name, text: missingResultText }));
    }
    if (results.length > 0) prompt.push({ role: 'tool', content: results });
    pending = new Map();
    results = [];
  };

  for (const message of messages) {
    switch (message.role) {
      case 'tool': {
        const call = pending.get(message.toolCallId);
        // A result with no open call (its assistant message was trimmed, or a duplicate) breaks strict providers.
        if (call === undefined) continue;
        pending.delete(message.toolCallId);
        results.push(toolResultPart({ toolCallId: call.id, toolName: call.name, text: message.content }));
        continue;
      }
      case 'system':
        closePendingCalls();
        prompt.push({ role: 'system', content: message.content });
        continue;
      case 'user': {
        closePendingCalls();
        const parts = userParts(message.content, message.files);
        // Anthropic rejects blank text blocks; a message with nothing in it says nothing to any model.
        if (parts.length > 0) prompt.push({ role: 'user', content: parts });
        continue;
      }
      case 'assistant': {
        closePendingCalls();
        const converted = assistantMessage(message, includeReasoning);
        if (converted === undefined) continue;
        prompt.push(converted.message);
        pending = converted.calls;
      }
    }
  }
  closePendingCalls();
  return prompt;
}

function assistantMessage(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  includeReasoning: boolean,
): { message: LanguageModelV4Message; calls: Map<string, AssistantToolCall> } | undefined {
  const content: Array<LanguageModelV4TextPart | LanguageModelV4ReasoningPart | LanguageModelV4ToolCallPart> =
    [];
  if (includeReasoning && message.reasoning !== undefined && message.reasoning.trim() !== '') {
    content.push({ type: 'reasoning', text: message.reasoning });
  }
  if (message.content.trim() !== '') content.push({ type: 'text', text: message.content });
  const calls = new Map<string, AssistantToolCall>();
  for (const call of message.toolCalls ?? []) {
    // Two calls with one id cannot both be answered: keep the first.
    if (calls.has(call.id)) continue;
    calls.set(call.id, call);
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
  }
  if (content.length === 0 || content.every((part) => part.type === 'reasoning')) return undefined;
  return { message: { role: 'assistant', content }, calls };
}

function userParts(text: string, files: readonly ChatFile[] | undefined): LanguageModelV4TextPart[] {
  const parts: LanguageModelV4TextPart[] = [];
  if (text.trim() !== '') parts.push({ type: 'text', text });
  // Files are references (the bytes live in the file store); the model learns they exist and their ids.
  for (const file of files ?? []) {
    parts.push({
      type: 'text',
      text: `[attached file — file_id: ${file.id} — ${file.name} (${file.mediaType})]`,
    });
  }
  return parts;
}

function toolResultPart(options: {
  toolCallId: string;
  toolName: string;
  text: string;
}): LanguageModelV4ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: options.toolCallId,
    toolName: options.toolName,
    output: { type: 'text', value: options.text },
  };
}
