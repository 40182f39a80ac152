import { randomBytes } from 'node:crypto';
import {
  AnswerRepair,
  type AnswerRepairEnd,
  type AnswerRepairOptions,
  type RecoveryDialects,
} from '@toolbus/core/repair';
import type { ToolDefinition } from '@toolbus/spec';
import { isPlainObject, omitUndefined } from '@toolbus/spec';
import { newRecoveryReport, type RecoveryReport, takeRecoveredCalls } from './chat-completion-repair.ts';

type Json = Record<string, unknown>;

/**
 * The `signature` of the thinking blocks the gateway writes. Anthropic's own is an opaque proof that Claude wrote
 * the block; the model here is not Claude, so there is nothing to prove, but clients expect one: Claude Code drops
 * a thinking block that came without its `signature_delta` (and with it the turn), and sends the block back, with
 * its signature, in the next request. Non-empty and plainly not Anthropic's; the gateway drops every thinking block
 * a client sends back (`messagesToChatCompletions`), its own included, so the value is never checked.
 */
export const GATEWAY_THINKING_SIGNATURE = 'toolbus-gateway:unverified';

const stopReasons: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/**
 * An OpenAI-compatible upstream's Chat Completions stream, written as Anthropic Messages stream events
 * (`message_start`, content blocks of `thinking`, `text` and `tool_use` with their deltas, `message_delta` with the
 * stop reason and usage, `message_stop`; a `ping` after the start, an `error` event when the upstream reports one
 * mid-stream). Text goes through {@link AnswerRepair}: calls written as text become
 * `tool_use` blocks and stop reason `tool_use`. `push` takes each upstream `data` payload, returns event text.
 */
export class AnthropicStreamWriter {
  readonly #repair: AnswerRepair;
  readonly #model: string;
  readonly #id = `msg_${randomBytes(12).toString('hex')}`;
  readonly #options: AnthropicRepairOptions;
  readonly report: RecoveryReport = newRecoveryReport();
  #started = false;
  #index = -1;
  #open: 'text' | 'thinking' | 'tool_use' | undefined;
  readonly #nativeBlocks = new Map<number, number>();
  #stopReason: string | undefined;
  #stopSequence: string | null = null;
  #outputTokens = 0;
  #inputTokens = 0;
  #ended = false;

  constructor(options: AnthropicRepairOptions) {
    this.#model = options.model;
    this.#options = options;
    this.#repair = new AnswerRepair(answerRepairOptions(options));
  }

  push(data: string): string {
    // After the message's end (or an error event) nothing more is written, whatever the upstream still sends.
    if (this.#ended) return '';
    if (data.trim() === '[DONE]') return this.end();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return '';
    }
    if (!isPlainObject(chunk)) return '';
    let out = this.#start();
    if (isPlainObject(chunk.error) || chunk.object === 'error') return out + this.#upstreamError(chunk);
    if (isPlainObject(chunk.usage)) {
      if (typeof chunk.usage.prompt_tokens === 'number') this.#inputTokens = chunk.usage.prompt_tokens;
      if (typeof chunk.usage.completion_tokens === 'number')
        this.#outputTokens = chunk.usage.completion_tokens;
    }
    const choice = Array.isArray(chunk.choices)
      ? chunk.choices.find((item) => isPlainObject(item) && (item.index ?? 0) === 0)
      : undefined;
    if (!isPlainObject(choice)) return out;
    const delta = isPlainObject(choice.delta) ? choice.delta : {};
    const reasoning =
      typeof delta.reasoning_content === 'string'
        ? delta.reasoning_content
        : typeof delta.reasoning === 'string'
          ? delta.reasoning
          : '';
    if (reasoning !== '') {
      this.#repair.reasoning(reasoning);
      out += this.#thinking(reasoning);
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      const output = this.#repair.text(delta.content);
      out += this.#thinking(output.reasoning) + this.#text(output.text);
    }
    if (Array.isArray(delta.tool_calls)) {
      this.#repair.nativeCall();
      for (const call of delta.tool_calls) out += this.#nativeCall(call);
    }
    if (typeof choice.finish_reason === 'string') {
      const cutByTokenLimit = choice.finish_reason === 'length';
      out += this.#finishText(this.#repair.end({ cutByTokenLimit }), cutByTokenLimit);
      if (this.#stopReason === undefined) {
        this.#stopSequence = matchedStopSequence(choice, this.#options.stopSequences);
        this.#stopReason =
          this.#stopSequence !== null ? 'stop_sequence' : (stopReasons[choice.finish_reason] ?? 'end_turn');
      }
    }
    return out;
  }

  /** Ends the message (at `[DONE]`, or when the upstream stream ends without it). Idempotent. */
  end(): string {
    if (this.#ended) return '';
    this.#ended = true;
    let out = this.#start();
    if (this.#stopReason === undefined) {
      out += this.#finishText(this.#repair.end());
      this.#stopReason = 'end_turn';
    }
    out += this.#close();
    out += event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: this.#stopReason, stop_sequence: this.#stopSequence },
      // The input count is known only now (the upstream's usage chunk comes last); the SDKs take it from here.
      usage: { input_tokens: this.#inputTokens, output_tokens: this.#outputTokens },
    });
    return out + event('message_stop', { type: 'message_stop' });
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    return (
      event('message_start', {
        type: 'message_start',
        message: {
          id: this.#id,
          type: 'message',
          role: 'assistant',
          model: this.#model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: this.#inputTokens, output_tokens: 0 },
        },
      }) + event('ping', { type: 'ping' })
    );
  }

  // An error the upstream wrote into its stream (vLLM does when generation fails): Anthropic's `error` event, and
  // the stream ends there, with no `message_stop` after it.
  #upstreamError(chunk: Json): string {
    this.#ended = true;
    const detail = isPlainObject(chunk.error) ? chunk.error : chunk;
    const said = typeof detail.message === 'string' ? detail.message.slice(0, 500) : 'no message';
    return event('error', {
      type: 'error',
      error: { type: 'api_error', message: `The upstream model server failed mid-answer: ${said}` },
    });
  }

  #finishText(end: AnswerRepairEnd, cutByTokenLimit = false): string {
    const calls = takeRecoveredCalls(this.report, end, this.#options.maxCalls);
    let out =
      this.#thinking(end.reasoning) +
      this.#text(
        end.calls.length === 0 && end.unreadable !== undefined ? end.text + end.hiddenText : end.text,
      );
    for (const call of calls) {
      out += this.#block({ type: 'tool_use', id: toolUseId(), name: call.name, input: {} }, 'tool_use');
      out += event('content_block_delta', {
        type: 'content_block_delta',
        index: this.#index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.arguments) },
      });
    }
    // An answer the token limit cut keeps `max_tokens` (set by the caller), calls or not: Anthropic's own answer cut
    // inside a `tool_use` block says `max_tokens` too.
    if (calls.length > 0 && !cutByTokenLimit) this.#stopReason = 'tool_use';
    return out;
  }

  #thinking(text: string): string {
    if (text === '') return '';
    const open =
      this.#open === 'thinking'
        ? ''
        : this.#block({ type: 'thinking', thinking: '', signature: '' }, 'thinking');
    return (
      open +
      event('content_block_delta', {
        type: 'content_block_delta',
        index: this.#index,
        delta: { type: 'thinking_delta', thinking: text },
      })
    );
  }

  #text(text: string): string {
    if (text === '') return '';
    const open = this.#open === 'text' ? '' : this.#block({ type: 'text', text: '' }, 'text');
    return (
      open +
      event('content_block_delta', {
        type: 'content_block_delta',
        index: this.#index,
        delta: { type: 'text_delta', text },
      })
    );
  }

  #nativeCall(call: unknown): string {
    if (!isPlainObject(call)) return '';
    const callIndex = typeof call.index === 'number' ? call.index : 0;
    const fn = isPlainObject(call.function) ? call.function : {};
    let out = '';
    if (!this.#nativeBlocks.has(callIndex)) {
      out += this.#block(
        {
          type: 'tool_use',
          id: typeof call.id === 'string' ? call.id : toolUseId(),
          name: String(fn.name ?? ''),
          input: {},
        },
        'tool_use',
      );
      this.#nativeBlocks.set(callIndex, this.#index);
      this.#stopReason = undefined;
    }
    if (typeof fn.arguments === 'string' && fn.arguments !== '') {
      out += event('content_block_delta', {
        type: 'content_block_delta',
        index: this.#nativeBlocks.get(callIndex),
        delta: { type: 'input_json_delta', partial_json: fn.arguments },
      });
    }
    return out;
  }

  #block(block: Json, kind: 'text' | 'thinking' | 'tool_use'): string {
    const out = this.#close();
    this.#index += 1;
    this.#open = kind;
    return (
      out +
      event('content_block_start', { type: 'content_block_start', index: this.#index, content_block: block })
    );
  }

  #close(): string {
    if (this.#open === undefined) return '';
    // A thinking block's signature comes last, just before its stop, as Anthropic's stream sends it.
    const signature =
      this.#open === 'thinking'
        ? event('content_block_delta', {
            type: 'content_block_delta',
            index: this.#index,
            delta: { type: 'signature_delta', signature: GATEWAY_THINKING_SIGNATURE },
          })
        : '';
    this.#open = undefined;
    return signature + event('content_block_stop', { type: 'content_block_stop', index: this.#index });
  }
}

/** A whole Chat Completions answer as an Anthropic Messages answer, repaired the same way. */
export function chatCompletionToMessage(
  body: unknown,
  options: AnthropicRepairOptions,
): { message: Json; report: RecoveryReport } {
  const report = newRecoveryReport();
  const choice = isPlainObject(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = isPlainObject(choice) && isPlainObject(choice.message) ? choice.message : {};
  const content: Json[] = [];
  const repair = new AnswerRepair(answerRepairOptions(options));
  const upstreamReasoning =
    typeof message.reasoning_content === 'string'
      ? message.reasoning_content
      : typeof message.reasoning === 'string'
        ? message.reasoning
        : '';
  if (upstreamReasoning !== '') repair.reasoning(upstreamReasoning);
  const native = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isPlainObject) : [];
  if (native.length > 0) repair.nativeCall();
  const finish =
    isPlainObject(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : 'stop';
  const end = repair.whole(typeof message.content === 'string' ? message.content : '', {
    cutByTokenLimit: finish === 'length',
  });
  const reasoning = upstreamReasoning + end.reasoning;
  if (reasoning !== '')
    content.push({ type: 'thinking', thinking: reasoning, signature: GATEWAY_THINKING_SIGNATURE });
  const text = end.text + (end.calls.length === 0 && end.unreadable !== undefined ? end.hiddenText : '');
  if (text !== '') content.push({ type: 'text', text });
  for (const call of native) {
    const fn = isPlainObject(call.function) ? call.function : {};
    content.push({
      type: 'tool_use',
      id: String(call.id ?? toolUseId()),
      name: String(fn.name ?? ''),
      input: parseInput(fn.arguments),
    });
  }
  const calls = takeRecoveredCalls(report, end, options.maxCalls);
  for (const call of calls)
    content.push({ type: 'tool_use', id: toolUseId(), name: call.name, input: call.arguments });
  const stopSequence = isPlainObject(choice) ? matchedStopSequence(choice, options.stopSequences) : null;
  const usage = isPlainObject(body) && isPlainObject(body.usage) ? body.usage : {};
  return {
    report,
    message: {
      id: `msg_${randomBytes(12).toString('hex')}`,
      type: 'message',
      role: 'assistant',
      model: options.model,
      content,
      stop_reason:
        calls.length > 0 && finish !== 'length'
          ? 'tool_use'
          : stopSequence !== null
            ? 'stop_sequence'
            : (stopReasons[finish] ?? 'end_turn'),
      stop_sequence: calls.length > 0 && finish !== 'length' ? null : stopSequence,
      usage: {
        input_tokens: typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0,
        output_tokens: typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0,
      },
    },
  };
}

/** What the Messages writers repair with: the request's tools, the model, and its dialects. */
export interface AnthropicRepairOptions {
  readonly tools: readonly ToolDefinition[];
  /** The model the client asked for: the answer's `model`. */
  readonly model: string;
  /** The model the upstream serves, when an alias named another (its profile's dialects are tried first). */
  readonly servedModel?: string | undefined;
  readonly dialects?: RecoveryDialects;
  /** At most this many recovered calls (1 for `disable_parallel_tool_use`). */
  readonly maxCalls?: number | undefined;
  /** The request's `stop_sequences`, to say which one ended the answer. */
  readonly stopSequences?: readonly string[] | undefined;
}

/**
 * The stop sequence that ended a choice, when the upstream says which: vLLM puts the matched stop string in the
 * choice's `stop_reason` (OpenAI's format has no field for it, so other servers' answers end as `end_turn`).
 */
function matchedStopSequence(choice: Json, stopSequences: readonly string[] | undefined): string | null {
  const matched = choice.stop_reason;
  return choice.finish_reason === 'stop' &&
    typeof matched === 'string' &&
    stopSequences?.includes(matched) === true
    ? matched
    : null;
}

function answerRepairOptions(options: AnthropicRepairOptions): AnswerRepairOptions {
  return {
    tools: options.tools,
    modelId: options.servedModel ?? options.model,
    validateArguments: true,
    ...omitUndefined({ preferredDialects: options.dialects?.dialects, parsers: options.dialects?.parsers }),
  };
}

function parseInput(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function toolUseId(): string {
  return `toolu_${randomBytes(12).toString('hex')}`;
}

function event(name: string, data: Json): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
