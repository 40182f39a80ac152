import { randomBytes } from 'node:crypto';
import {
  AnswerRepair,
  type AnswerRepairEnd,
  type AnswerRepairOptions,
  type AnswerRepairOutput,
  type ExtractedToolCall,
  sseData,
  type ToolCallTextParser,
} from '@toolbus/core/repair';
import type { ToolDefinition } from '@toolbus/spec';
import { isPlainObject, omitUndefined } from '@toolbus/spec';
import { plainContentOf } from './plain-content-chunk.ts';

/** Options for the Chat Completions repairs. */
export interface ChatCompletionRepairOptions {
  /** The tools the request declared (see `requestToolDefinitions`); none: only reasoning is split off. */
  readonly tools: readonly ToolDefinition[];
  /** The model the request named: its profile's dialects are tried first. */
  readonly modelId?: string;
  /** The dialects tried first (from the model's served template and profile), instead of the profile's alone. */
  readonly preferredDialects?: readonly string[] | undefined;
  /** The parsers (the built-in ones, plus any the model's template adds). */
  readonly parsers?: readonly ToolCallTextParser[] | undefined;
  /** At most this many recovered calls per choice (1 for `parallel_tool_calls: false`); the rest are dropped. */
  readonly maxCalls?: number | undefined;
}

/** What recovery did over a whole response, for the response's headers and the log. */
export interface RecoveryReport {
  /** Calls the model wrote as text that came back as real calls. */
  recovered: number;
  /** Why text that held call markup produced no call (the text was then passed on as text). */
  unreadable: string | undefined;
  /** Recovered calls left out because the request allowed fewer (`parallel_tool_calls: false`). */
  dropped: number;
  /**
   * Answers the output token limit cut while the model was writing a call (`finish_reason: "length"`): that call
   * was left out, not completed by repair into a call the model never finished.
   */
  truncated: number;
}

/** A report of no recovery yet. */
export function newRecoveryReport(): RecoveryReport {
  return { recovered: 0, unreadable: undefined, dropped: 0, truncated: 0 };
}

/**
 * Notes what a choice's end recovered in `report` and returns the calls to emit: all of them, or the first
 * `maxCalls` when the request allowed fewer. A client that turned parallel calls off handles one call per turn;
 * the model writes the next one again in its next turn, with the first one's result in view.
 */
export function takeRecoveredCalls(
  report: RecoveryReport,
  end: AnswerRepairEnd,
  maxCalls: number | undefined,
): readonly ExtractedToolCall[] {
  const calls =
    maxCalls !== undefined && end.calls.length > maxCalls ? end.calls.slice(0, maxCalls) : end.calls;
  report.recovered += calls.length;
  report.dropped += end.calls.length - calls.length;
  if (end.truncated) report.truncated += 1;
  if (end.calls.length === 0) report.unreadable ??= end.unreadable;
  return calls;
}

type Json = Record<string, unknown>;

/**
 * One Chat Completions stream, repaired chunk by chunk: `push` takes each SSE `data` payload from the upstream and
 * returns the SSE text to send on. Content goes through {@link AnswerRepair} (markup hidden, reasoning written
 * into the text moved to `reasoning_content`); at a choice's `finish_reason` the calls written as text follow as
 * `delta.tool_calls` fragments in OpenAI's order (index, id and name first, then the argument JSON) and the finish
 * reason becomes `tool_calls`. Chunks with native `tool_calls` pass through untouched.
 */
export class ChatCompletionStreamRepair {
  readonly #options: ChatCompletionRepairOptions;
  readonly #choices = new Map<number, AnswerRepair>();
  readonly report: RecoveryReport = newRecoveryReport();

  constructor(options: ChatCompletionRepairOptions) {
    this.#options = options;
    // Nearly every stream has one choice, index 0: its repair is made now, while the model works on its first
    // token (the gateway builds this before the upstream answers), instead of on the first chunk's path.
    this.#repairFor(0);
  }

  /** One upstream `data:` payload in, the SSE text to write out (possibly empty: text held back). */
  push(data: string): string {
    return this.repair(data) ?? sseData(data);
  }

  /**
   * Like {@link push}, but `undefined` when the event goes on exactly as it came, as most chunks of a streaming
   * answer do: the caller then sends the upstream's own bytes, with no re-encoding.
   */
  repair(data: string): string | undefined {
    if (data.length <= 16 && data.trim() === '[DONE]') return 'data: [DONE]\n\n';
    // The usual chunk, one piece of text, is read without parsing it: parsed only if the repair changes its text.
    const plain = plainContentOf(data);
    let given: AnswerRepairOutput | undefined;
    if (plain !== undefined) {
      given = this.#repairFor(0).text(plain);
      if (given.text === plain && given.reasoning === '') return undefined;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return undefined;
    }
    if (!isPlainObject(chunk) || !Array.isArray(chunk.choices) || chunk.choices.length === 0) {
      return undefined;
    }
    // Most chunks of a streaming answer come out as they went in: then nothing is built (no list, no result per
    // choice) and the upstream's own bytes are sent on. The results are kept only once a choice changed.
    const list = chunk.choices as unknown[];
    let results: (ChoiceRepair | undefined)[] | undefined;
    for (let at = 0; at < list.length; at += 1) {
      const choice = list[at];
      if (!isPlainObject(choice)) continue;
      const repaired = this.#choice(chunk, choice, given);
      if (repaired === undefined && results === undefined) continue;
      results ??= new Array(at).fill(undefined);
      results[at] = repaired;
    }
    if (results === undefined) return undefined;
    let out = '';
    const choices: Json[] = [];
    for (let at = 0; at < list.length; at += 1) {
      const choice = list[at];
      if (!isPlainObject(choice)) continue;
      const repaired = results[at] ?? unchanged(choice);
      if (repaired.choice !== undefined) choices.push(repaired.choice);
      out += repaired.before;
      if (repaired.after !== '') {
        if (choices.length > 0) out += sse({ ...chunk, choices: choices.splice(0) });
        out += repaired.after;
      }
    }
    if (choices.length > 0) out += sse({ ...chunk, choices });
    return out;
  }

  // A choice the repair changed: what it became (undefined: not sent on its own), the events to write before and
  // after it. Undefined when the choice goes on as it came.
  // `given`: what the repair already made of a plain chunk's text (see `plainContentOf`).
  #choice(chunk: Json, choice: Json, given?: AnswerRepairOutput): ChoiceRepair | undefined {
    const index = typeof choice.index === 'number' ? choice.index : 0;
    const repair = this.#repairFor(index);
    // The chunk was parsed from the upstream's bytes for this call alone, so its objects are changed in place.
    const delta: Json = isPlainObject(choice.delta) ? choice.delta : {};
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) repair.nativeCall();
    const reasoningField = reasoningFieldOf(delta);
    if (typeof delta[reasoningField] === 'string') repair.reasoning(delta[reasoningField] as string);
    let changed = false;
    if (typeof delta.content === 'string') {
      const output = given ?? repair.text(delta.content);
      changed = output.text !== delta.content || output.reasoning !== '';
      if (changed) setText(delta, output.text, output.reasoning, reasoningField);
    }
    if (choice.finish_reason === null || choice.finish_reason === undefined) {
      if (!changed) return undefined;
      const kept = !worthSending(delta, choice)
        ? undefined
        : delta === choice.delta
          ? choice
          : { ...choice, delta };
      return { choice: kept, before: '', after: '' };
    }
    // The choice ends here: the rest of its text, then its recovered calls, then the finish.
    const cutByTokenLimit = choice.finish_reason === 'length';
    const end = repair.end({ cutByTokenLimit });
    this.#choices.delete(index);
    const recovered = takeRecoveredCalls(this.report, end, this.#options.maxCalls);
    const shownText =
      end.calls.length === 0 && end.unreadable !== undefined ? end.text + end.hiddenText : end.text;
    if (shownText !== '' || end.reasoning !== '') {
      changed = true;
      const content = typeof delta.content === 'string' ? delta.content : '';
      setText(delta, content + shownText, end.reasoning, reasoningField);
    }
    if (recovered.length === 0)
      return changed ? { choice: { ...choice, delta }, before: '', after: '' } : undefined;
    // The chunks written before the finish carry no usage: with `include_usage` only the last chunk has it
    // (llama.cpp sends it with the finish), every other one `usage: null`.
    const head = chunk.usage === undefined || chunk.usage === null ? chunk : { ...chunk, usage: null };
    const before = worthSending(delta, {})
      ? sse({ ...head, choices: [{ ...choice, delta, finish_reason: null }] })
      : '';
    let calls = '';
    recovered.forEach((call, callIndex) => {
      calls += sse({
        ...head,
        choices: [{ index, delta: toolCallStart(call, callIndex), finish_reason: null }],
      });
      calls += sse({
        ...head,
        choices: [
          {
            index,
            delta: {
              tool_calls: [{ index: callIndex, function: { arguments: JSON.stringify(call.arguments) } }],
            },
            finish_reason: null,
          },
        ],
      });
    });
    const finish = { ...choice, delta: {}, finish_reason: finishWithCalls(choice.finish_reason) };
    return { choice: undefined, before, after: calls + sse({ ...chunk, choices: [finish] }) };
  }

  #repairFor(index: number): AnswerRepair {
    let repair = this.#choices.get(index);
    if (repair === undefined) {
      repair = new AnswerRepair({ ...repairOptions(this.#options), validateArguments: true });
      this.#choices.set(index, repair);
    }
    return repair;
  }
}

/** A whole (non-streaming) Chat Completions answer, repaired the same way; returns the new body. */
export function repairChatCompletion(
  body: unknown,
  options: ChatCompletionRepairOptions,
): { body: unknown; report: RecoveryReport } {
  const report = newRecoveryReport();
  if (!isPlainObject(body) || !Array.isArray(body.choices)) return { body, report };
  const choices = body.choices.map((choice: unknown) => {
    if (!isPlainObject(choice) || !isPlainObject(choice.message)) return choice;
    const message: Json = { ...choice.message };
    if (typeof message.content !== 'string') return choice;
    const repair = new AnswerRepair({ ...repairOptions(options), validateArguments: true });
    const reasoningField = reasoningFieldOf(message);
    if (typeof message[reasoningField] === 'string') repair.reasoning(message[reasoningField] as string);
    if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) repair.nativeCall();
    const end = repair.whole(message.content, { cutByTokenLimit: choice.finish_reason === 'length' });
    const calls = takeRecoveredCalls(report, end, options.maxCalls);
    if (end.reasoning !== '')
      message[reasoningField] =
        `${typeof message[reasoningField] === 'string' ? message[reasoningField] : ''}${end.reasoning}`;
    const text = end.text + (end.calls.length === 0 && end.unreadable !== undefined ? end.hiddenText : '');
    if (end.calls.length === 0) return { ...choice, message: { ...message, content: text } };
    message.content = text.trim() === '' ? null : text;
    message.tool_calls = calls.map((call) => ({
      id: callId(),
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    return { ...choice, message, finish_reason: finishWithCalls(choice.finish_reason) };
  });
  return { body: { ...body, choices }, report };
}

/**
 * The finish reason of a choice the gateway recovered calls in: `tool_calls`, unless the answer ended on the token
 * limit. Then it stays `length`, as OpenAI's own answer cut inside its calls does (`length`: "the maximum number of
 * tokens specified in the request was reached", whatever calls came before): the client learns that the answer was
 * cut (a call the model was still writing was left out) and that its calls are the ones that closed before.
 */
export function finishWithCalls(upstreamFinish: unknown): string {
  return upstreamFinish === 'length' ? 'length' : 'tool_calls';
}

function repairOptions(options: ChatCompletionRepairOptions): AnswerRepairOptions {
  return {
    tools: options.tools,
    ...omitUndefined({
      modelId: options.modelId,
      preferredDialects: options.preferredDialects,
      parsers: options.parsers,
    }),
  };
}

function toolCallStart(call: ExtractedToolCall, index: number): Json {
  return {
    tool_calls: [{ index, id: callId(), type: 'function', function: { name: call.name, arguments: '' } }],
  };
}

// Servers name the reasoning field two ways (vLLM and DeepSeek `reasoning_content`, newer vLLM and Ollama's
// OpenAI API `reasoning`): reasoning found in the text goes where the server puts its own.
function reasoningFieldOf(delta: Json): string {
  return 'reasoning' in delta && !('reasoning_content' in delta) ? 'reasoning' : 'reasoning_content';
}

function setText(delta: Json, text: string, reasoning: string, reasoningField: string): void {
  if (reasoning !== '') {
    const before = typeof delta[reasoningField] === 'string' ? (delta[reasoningField] as string) : '';
    delta[reasoningField] = before + reasoning;
  }
  if (text !== '') delta.content = text;
  else if ('role' in delta) delta.content = '';
  else delete delta.content;
}

/** What the repair made of one choice of a chunk (see `#choice`). */
interface ChoiceRepair {
  readonly choice: Json | undefined;
  readonly before: string;
  readonly after: string;
}

// A choice left as it came, in a chunk where another changed: sent on as it was, unless it carries nothing (no
// delta, no logprobs, no finish).
function unchanged(choice: Json): ChoiceRepair {
  const delta: Json = isPlainObject(choice.delta) ? choice.delta : {};
  const finishes = choice.finish_reason !== null && choice.finish_reason !== undefined;
  const kept =
    !finishes && !worthSending(delta, choice)
      ? undefined
      : delta === choice.delta
        ? choice
        : { ...choice, delta };
  return { choice: kept, before: '', after: '' };
}

function worthSending(delta: Json, choice: Json): boolean {
  for (const _ in delta) return true;
  return choice.logprobs !== null && choice.logprobs !== undefined;
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** An id in OpenAI's shape for a recovered call. */
export function callId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}
