import { isPlainObject } from '@toolbus/spec';
import type { ReadRequest, WireRequestParts } from './read-wire-request.ts';
import { contentText, invalidToolNameIndex, readWireRequest } from './read-wire-request.ts';
import type { ScriptedMessage } from './scripted-turn.ts';

/**
 * Reads an OpenAI Chat Completions request and checks what strict servers reject: an assistant message with
 * `tool_calls` must be followed by exactly one `tool` message per call id before anything else; a `tool` message
 * must answer a preceding call; arguments must be strings; tool names must match `^[a-zA-Z0-9_-]{1,64}$`.
 */
export function readOpenAiChatRequest(body: unknown): ReadRequest {
  return readWireRequest(body, {
    toolName: (tool) => (isPlainObject(tool.function) ? String(tool.function.name) : ''),
    messages: ({ rawMessages }) => rawMessages.map(toScriptedMessage),
    includeUsage: (request) =>
      isPlainObject(request.stream_options) && request.stream_options.include_usage === true,
    findProblem,
  });
}

function findProblem({ request, rawMessages, toolNames }: WireRequestParts): string | undefined {
  if (typeof request.model !== 'string' || request.model === '') return 'you must provide a model parameter';
  if (rawMessages.length === 0)
    return "Invalid 'messages': empty array. Expected an array with minimum length 1.";
  const badTool = invalidToolNameIndex(toolNames);
  if (badTool >= 0) {
    return `Invalid 'tools[${badTool}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
  }
  let pending: Set<string> | undefined;
  for (const [index, message] of rawMessages.entries()) {
    if (!isPlainObject(message)) return `Invalid type for 'messages[${index}]': expected an object.`;
    if (message.role === 'tool') {
      const id = message.tool_call_id;
      if (pending === undefined || typeof id !== 'string' || !pending.has(id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      pending.delete(id);
      continue;
    }
    if (pending !== undefined && pending.size > 0) return missingResponses(pending);
    pending = undefined;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      pending = new Set();
      for (const [callIndex, call] of message.tool_calls.entries()) {
        if (!isPlainObject(call) || typeof call.id !== 'string' || !isPlainObject(call.function)) {
          return `Invalid 'messages[${index}].tool_calls[${callIndex}]'.`;
        }
        if (typeof call.function.arguments !== 'string') {
          return `Invalid type for 'messages[${index}].tool_calls[${callIndex}].function.arguments': expected a string.`;
        }
        if (pending.has(call.id)) return `Duplicate tool_call id '${call.id}' in messages[${index}].`;
        pending.add(call.id);
      }
    }
  }
  if (pending !== undefined && pending.size > 0) return missingResponses(pending);
  return undefined;
}

function missingResponses(pending: Set<string>): string {
  return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(', ')}`;
}

function toScriptedMessage(message: unknown): ScriptedMessage {
  const value = isPlainObject(message) ? message : {};
  const role = value.role === 'developer' ? 'system' : value.role;
  const text = contentText(value.content);
  if (role === 'tool') {
    return {
      role: 'tool',
      text,
      toolCalls: [],
      toolResults: [{ toolCallId: String(value.tool_call_id), content: text }],
    };
  }
  const toolCalls = Array.isArray(value.tool_calls)
    ? value.tool_calls.filter(isPlainObject).map((call) => {
        const fn = isPlainObject(call.function) ? call.function : {};
        return { id: String(call.id), name: String(fn.name), arguments: String(fn.arguments) };
      })
    : [];
  return {
    role: role === 'system' || role === 'assistant' ? role : 'user',
    text,
    toolCalls,
    toolResults: [],
  };
}
