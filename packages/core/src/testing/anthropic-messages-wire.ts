import type { ScriptedDataStep, ScriptedFinish } from './expand-scripted-steps.ts';
import type { ScriptedFinishReason } from './scripted-turn.ts';
import { collapseScriptedSteps, type ScriptedWire } from './scripted-wire.ts';

const stopReasons: Record<ScriptedFinishReason, string> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  length: 'max_tokens',
  'content-filter': 'refusal',
};

type OpenBlock = { readonly kind: 'text' | 'thinking' | 'tool_use'; readonly blockIndex: number };

/**
 * Anthropic Messages streaming: `event:`/`data:` pairs message_start, content_block_start/delta/stop
 * (`text_delta`, `thinking_delta` + `signature_delta`, `input_json_delta`), message_delta, message_stop. Content
 * blocks are sequential as in the real API: a new kind of content closes the open block.
 */
export function createAnthropicMessagesWire(options: {
  model: string;
  id: string;
  inputTokens: number;
}): ScriptedWire {
  let nextBlockIndex = 0;
  let open: OpenBlock | undefined;
  const toolBlocks = new Map<number, number>();
  const event = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const close = (): string => {
    if (open === undefined) return '';
    let text = '';
    if (open.kind === 'thinking') {
      text += event('content_block_delta', {
        index: open.blockIndex,
        delta: { type: 'signature_delta', signature: 'c2NyaXB0ZWQtc2lnbmF0dXJl' },
      });
    }
    text += event('content_block_stop', { index: open.blockIndex });
    open = undefined;
    return text;
  };
  const openBlock = (kind: OpenBlock['kind'], contentBlock: Record<string, unknown>): string => {
    const text = close();
    open = { kind, blockIndex: nextBlockIndex };
    nextBlockIndex += 1;
    return text + event('content_block_start', { index: open.blockIndex, content_block: contentBlock });
  };
  return {
    begin: () =>
      event('message_start', {
        message: {
          id: options.id,
          type: 'message',
          role: 'assistant',
          model: options.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: options.inputTokens, output_tokens: 1 },
        },
      }) + event('ping', {}),
    write(step) {
      switch (step.type) {
        case 'text': {
          const prefix = open?.kind === 'text' ? '' : openBlock('text', { type: 'text', text: '' });
          const index = (open as OpenBlock).blockIndex;
          return `${prefix}${event('content_block_delta', { index, delta: { type: 'text_delta', text: step.text } })}`;
        }
        case 'reasoning': {
          const prefix =
            open?.kind === 'thinking' ? '' : openBlock('thinking', { type: 'thinking', thinking: '' });
          const index = (open as OpenBlock).blockIndex;
          return `${prefix}${event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: step.text } })}`;
        }
        case 'tool-call-start': {
          const text = openBlock('tool_use', { type: 'tool_use', id: step.id, name: step.name, input: {} });
          toolBlocks.set(step.index, (open as OpenBlock).blockIndex);
          return text;
        }
        case 'tool-call-delta': {
          const index = toolBlocks.get(step.index);
          if (index === undefined) return '';
          return event('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: step.argumentsDelta },
          });
        }
        case 'raw':
          return step.data;
      }
    },
    end(finish) {
      return (
        close() +
        event('message_delta', {
          delta: { stop_reason: stopReasons[finish.reason], stop_sequence: null },
          usage: { output_tokens: finish.outputTokens },
        }) +
        event('message_stop', {})
      );
    },
    complete(steps, finish) {
      return anthropicMessage({ id: options.id, model: options.model, steps, finish });
    },
  };
}

function anthropicMessage(options: {
  id: string;
  model: string;
  steps: readonly ScriptedDataStep[];
  finish: ScriptedFinish;
}): unknown {
  const content: Record<string, unknown>[] = [];
  const { text, reasoning: thinking, calls } = collapseScriptedSteps(options.steps);
  if (thinking !== '') content.push({ type: 'thinking', thinking, signature: 'c2NyaXB0ZWQtc2lnbmF0dXJl' });
  if (text !== '') content.push({ type: 'text', text });
  for (const call of calls) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseObject(call.arguments) });
  }
  return {
    id: options.id,
    type: 'message',
    role: 'assistant',
    model: options.model,
    content,
    stop_reason: stopReasons[options.finish.reason],
    stop_sequence: null,
    usage: { input_tokens: options.finish.inputTokens, output_tokens: options.finish.outputTokens },
  };
}

function parseObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    // The real API always returns an object; a script with broken arguments gets an empty one here.
    return {};
  }
}

/** The Anthropic error body for a status. */
export function anthropicErrorBody(status: number, message: string): unknown {
  const type =
    status === 400
      ? 'invalid_request_error'
      : status === 401
        ? 'authentication_error'
        : status === 403
          ? 'permission_error'
          : status === 404
            ? 'not_found_error'
            : status === 429
              ? 'rate_limit_error'
              : status === 529
                ? 'overloaded_error'
                : 'api_error';
  return { type: 'error', error: { type, message } };
}
