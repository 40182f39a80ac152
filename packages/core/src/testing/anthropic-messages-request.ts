import { isPlainObject } from '@toolbus/spec';
import type { ReadRequest, WireRequestParts } from './read-wire-request.ts';
import { contentText, invalidToolNameIndex, readWireRequest } from './read-wire-request.ts';
import type { ScriptedMessage } from './scripted-turn.ts';

/**
 * Reads an Anthropic Messages request and checks what the real API rejects: `max_tokens` required; roles `user` and
 * `assistant` only; no empty content or empty text blocks; every `tool_use` answered by a `tool_result` in the very
 * next (user) message, and every `tool_result` answering a `tool_use` of the message right before it.
 */
export function readAnthropicMessagesRequest(body: unknown): ReadRequest {
  return readWireRequest(body, {
    toolName: (tool) => String(tool.name),
    messages: ({ request, rawMessages }) => {
      const system = systemText(request.system);
      return [
        ...(system === undefined
          ? []
          : [{ role: 'system' as const, text: system, toolCalls: [], toolResults: [] }]),
        ...rawMessages.map(toScriptedMessage),
      ];
    },
    // The Messages API reports usage on every stream.
    includeUsage: () => true,
    findProblem,
  });
}

function findProblem({ request, rawMessages, toolNames }: WireRequestParts): string | undefined {
  if (typeof request.model !== 'string' || request.model === '') return 'model: Field required';
  if (typeof request.max_tokens !== 'number') return 'max_tokens: Field required';
  if (rawMessages.length === 0) return 'messages: at least one message is required';
  const badTool = invalidToolNameIndex(toolNames);
  if (badTool >= 0)
    return `tools.${badTool}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
  let previousToolUses = new Set<string>();
  for (const [index, message] of rawMessages.entries()) {
    if (!isPlainObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const isFinalAssistant = index === rawMessages.length - 1 && message.role === 'assistant';
    if (!Array.isArray(blocks) || (blocks.length === 0 && !isFinalAssistant)) {
      return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const toolUses = new Set<string>();
    const answered = new Set<string>();
    for (const [blockIndex, block] of blocks.entries()) {
      if (!isPlainObject(block)) return `messages.${index}.content.${blockIndex}: Input should be an object`;
      if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '')) {
        return 'messages: text content blocks must be non-empty';
      }
      if (block.type === 'text' && String(block.text).trim() === '') {
        return 'messages: text content blocks must contain non-whitespace text';
      }
      if (block.type === 'tool_use') {
        if (message.role !== 'assistant')
          return `messages.${index}.content.${blockIndex}: tool_use only in assistant messages`;
        toolUses.add(String(block.id));
      }
      if (block.type === 'tool_result') {
        const id = String(block.tool_use_id);
        if (message.role !== 'user' || !previousToolUses.has(id) || answered.has(id)) {
          return `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        answered.add(id);
      }
    }
    const unanswered = [...previousToolUses].filter((id) => !answered.has(id));
    if (unanswered.length > 0) {
      return `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    previousToolUses = toolUses;
  }
  if (previousToolUses.size > 0) {
    return `messages.${rawMessages.length - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...previousToolUses].join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

function toScriptedMessage(message: unknown): ScriptedMessage {
  const value = isPlainObject(message) ? message : {};
  const blocks = typeof value.content === 'string' ? [{ type: 'text', text: value.content }] : value.content;
  const list = Array.isArray(blocks) ? blocks.filter(isPlainObject) : [];
  const text = list
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('');
  const toolCalls = list
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({
      id: String(block.id),
      name: String(block.name),
      arguments: JSON.stringify(block.input ?? {}),
    }));
  const toolResults = list
    .filter((block) => block.type === 'tool_result')
    .map((block) => ({ toolCallId: String(block.tool_use_id), content: contentText(block.content) }));
  const role =
    value.role === 'assistant' ? 'assistant' : toolResults.length > 0 && text === '' ? 'tool' : 'user';
  return { role, text, toolCalls, toolResults };
}

function systemText(system: unknown): string | undefined {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return undefined;
  return system
    .filter(isPlainObject)
    .map((block) => String(block.text ?? ''))
    .join('\n');
}
