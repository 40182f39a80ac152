import { isPlainObject } from '@toolbus/spec';
import { GATEWAY_THINKING_SIGNATURE } from './anthropic-response.ts';

type Json = Record<string, unknown>;

/** An Anthropic Messages request the gateway cannot translate: the field and why, for a 400. */
export class MessagesRequestError extends Error {
  override readonly name = 'MessagesRequestError';
}

/**
 * An Anthropic Messages request (`POST /v1/messages`) as the OpenAI Chat Completions request an OpenAI-compatible
 * model server takes: the system prompt first, `tool_use` blocks as assistant `tool_calls`, `tool_result` blocks as
 * `tool` messages (before the rest of that user turn), images as `image_url` parts, tools as functions with their
 * `input_schema`, `tool_choice` mapped (`any` → `required`, `disable_parallel_tool_use` → `parallel_tool_calls:
 * false`), `max_tokens`, `stop_sequences` → `stop`, sampling
 * kept. A thinking block the gateway wrote (its signature) goes back as the assistant message's `reasoning_content`,
 * which the templates of reasoning models that call tools read within a turn (Qwen3, DeepSeek, Kimi, GLM); other
 * thinking blocks (another server's, redacted ones) are dropped: the model did not write them.
 */
export function messagesToChatCompletions(body: unknown): Json {
  if (!isPlainObject(body)) throw new MessagesRequestError('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '')
    throw new MessagesRequestError('model: a model name is required.');
  if (!Array.isArray(body.messages))
    throw new MessagesRequestError('messages: an array of messages is required.');
  if (typeof body.max_tokens !== 'number')
    throw new MessagesRequestError('max_tokens: a number is required.');
  const messages: Json[] = [];
  const system = systemText(body.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const [index, message] of body.messages.entries()) messages.push(...chatMessages(message, index));
  const out: Json = {
    model: body.model,
    messages,
    max_tokens: body.max_tokens,
    stream: body.stream === true,
  };
  if (body.stream === true) out.stream_options = { include_usage: true };
  for (const field of ['temperature', 'top_p', 'top_k'] as const)
    if (typeof body[field] === 'number') out[field] = body[field];
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) out.stop = body.stop_sequences;
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    out.tools = body.tools.filter(isPlainObject).map((tool, index) => {
      if (typeof tool.name !== 'string')
        throw new MessagesRequestError(`tools[${index}].name: a name is required.`);
      return {
        type: 'function',
        function: {
          name: tool.name,
          description: typeof tool.description === 'string' ? tool.description : '',
          parameters: isPlainObject(tool.input_schema)
            ? tool.input_schema
            : { type: 'object', properties: {} },
        },
      };
    });
    const choice = toolChoice(body.tool_choice);
    if (choice !== undefined) out.tool_choice = choice;
    if (isPlainObject(body.tool_choice) && body.tool_choice.disable_parallel_tool_use === true)
      out.parallel_tool_calls = false;
  }
  return out;
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system
    .filter(isPlainObject)
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '')
    .join('\n\n');
}

function toolChoice(choice: unknown): unknown {
  if (!isPlainObject(choice)) return undefined;
  if (choice.type === 'auto') return 'auto';
  if (choice.type === 'any') return 'required';
  if (choice.type === 'none') return 'none';
  if (choice.type === 'tool' && typeof choice.name === 'string')
    return { type: 'function', function: { name: choice.name } };
  return undefined;
}

function chatMessages(message: unknown, index: number): Json[] {
  if (!isPlainObject(message) || (message.role !== 'user' && message.role !== 'assistant'))
    throw new MessagesRequestError(`messages[${index}].role: must be "user" or "assistant".`);
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  if (!Array.isArray(message.content))
    throw new MessagesRequestError(`messages[${index}].content: a string or an array of blocks is required.`);
  const blocks = message.content.filter(isPlainObject);
  if (message.role === 'assistant') {
    const text = blocks
      .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
      .join('');
    const reasoning = blocks
      .map((block) =>
        block.type === 'thinking' &&
        block.signature === GATEWAY_THINKING_SIGNATURE &&
        typeof block.thinking === 'string'
          ? block.thinking
          : '',
      )
      .join('');
    const calls = blocks
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      }));
    return [
      {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
    ];
  }
  const out: Json[] = [];
  const parts: Json[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_result') {
      out.push({ role: 'tool', tool_call_id: String(block.tool_use_id), content: toolResultText(block) });
      // A tool message takes text only (OpenAI's format): a result's images (Claude Code's Read of an image
      // file) follow in the user message after the tool messages, named, instead of being lost.
      const images = Array.isArray(block.content)
        ? block.content.filter((part) => isPlainObject(part) && part.type === 'image')
        : [];
      if (images.length > 0)
        parts.push({ type: 'text', text: `The result of ${String(block.tool_use_id)}:` });
      for (const image of images) parts.push(...userParts(image as Json));
    } else parts.push(...userParts(block));
  }
  if (parts.length > 0) {
    const onlyText = parts.every((part) => part.type === 'text');
    out.push({ role: 'user', content: onlyText ? parts.map((part) => part.text).join('\n') : parts });
  }
  return out;
}

// A user content block as Chat Completions parts: text, an image (base64 as a data URL, or its URL), a text
// document's text. A block the upstream cannot take (a PDF) leaves a note in its place, so the model knows.
function userParts(block: Json): Json[] {
  if (block.type === 'text' && typeof block.text === 'string') return [{ type: 'text', text: block.text }];
  const source = isPlainObject(block.source) ? block.source : {};
  if (block.type === 'image') {
    const url =
      source.type === 'base64'
        ? `data:${String(source.media_type)};base64,${String(source.data)}`
        : String(source.url ?? '');
    return [{ type: 'image_url', image_url: { url } }];
  }
  if (block.type === 'document') {
    if (source.type === 'text' && typeof source.data === 'string')
      return [{ type: 'text', text: source.data }];
    if (source.type === 'content' && Array.isArray(source.content))
      return source.content.filter(isPlainObject).flatMap(userParts);
    const title = typeof block.title === 'string' ? ` "${block.title}"` : '';
    return [
      {
        type: 'text',
        text: `[A document${title} was left out: the model server takes text and images only.]`,
      },
    ];
  }
  return [];
}

function toolResultText(block: Json): string {
  const prefix = block.is_error === true ? 'Error: ' : '';
  if (typeof block.content === 'string') return prefix + block.content;
  if (!Array.isArray(block.content)) return prefix;
  return (
    prefix +
    block.content
      .filter((part) => isPlainObject(part) && part.type === 'text' && typeof part.text === 'string')
      .map((part) => (part as { text: string }).text)
      .join('\n')
  );
}
