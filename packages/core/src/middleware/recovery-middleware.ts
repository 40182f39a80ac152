import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { callCutByTokenLimit } from '../recovery/call-cut-by-token-limit.ts';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type {
  ExtractedToolCall,
  LocatedToolCall,
  ToolCallTextParser,
} from '../recovery/extracted-tool-call.ts';
import { findModelProfile } from '../recovery/model-profiles.ts';
import {
  defaultToolCallMarkupMarkers,
  type ToolCallParserRegistry,
  toolCallMarkupMarkersOf,
} from '../recovery/tool-call-parser-registry.ts';
import { withoutToolCallText } from '../recovery/without-tool-call-text.ts';
import { AnswerStreamFilter } from '../streaming/answer-stream-filter.ts';
import { strippedHarmonyRestorerFor } from '../streaming/stripped-harmony-restorer.ts';
import { AnswerRepair, type AnswerRepairEnd, type AnswerRepairOutput } from './answer-repair.ts';

/** Options for {@link createRecoveryMiddleware}. */
export interface RecoveryMiddlewareOptions {
  /** Dialect parsers (default: all built-in ones). */
  readonly parsers?: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  /** Makes the id of a recovered call (default `recovered_<random hex>`). */
  readonly generateId?: () => string;
}

/**
 * An AI SDK language-model middleware (`LanguageModelV4Middleware`) that gives any AI SDK application the
 * turn loop's recovery: when a model answers with tool calls written as text instead of native tool calls,
 * the text becomes proper `tool-call` parts (finish reason `tool-calls`) and the markup disappears from the
 * text parts. Streaming text passes through the `AnswerStreamFilter` as it arrives (markup hidden; an answer
 * that starts like a bare call of an offered tool held back until it is known not to be one).
 * The wrapped model's id picks its profile (see `findModelProfile`): its dialects are tried first. Reasoning the
 * model wrote into its text (gpt-oss's Harmony analysis channel, from a server that does not parse Harmony, also
 * with its special tokens stripped) leaves the text and comes out as the AI SDK's reasoning: `reasoning-start` / `reasoning-delta` /
 * `reasoning-end` parts while streaming, a `reasoning` content part in generate.
 * When the text holds no call, calls written in the reasoning are recovered too (the reasoning is not edited).
 * Nothing changes when the model made native calls or when no tools were offered.
 */
export function createRecoveryMiddleware(options: RecoveryMiddlewareOptions = {}): LanguageModelV4Middleware {
  const generateId = options.generateId ?? defaultId;
  const markers = options.parsers ? toolCallMarkupMarkersOf(options.parsers) : defaultToolCallMarkupMarkers;
  const extract = (
    text: string,
    toolDefs: readonly ToolDefinition[],
    preferredDialects: readonly string[] | undefined,
  ): LocatedToolCall[] =>
    extractLocatedToolCallsFromText(
      text,
      toolDefs,
      omitUndefined({ parsers: options.parsers, preferredDialects }),
    );

  return {
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate, params, model }) {
      const result = await doGenerate();
      const toolDefs = toolDefinitionsOf(params);
      const preferredDialects = findModelProfile(model.modelId)?.dialects;
      if (toolDefs.length === 0 || result.content.some((part) => part.type === 'tool-call')) return result;
      const content: LanguageModelV4Content[] = [];
      const recovered: LanguageModelV4Content[] = [];
      let edited = false;
      // An answer the output token limit ended: the call it cut (in the last text, or the reasoning) is not made.
      const cutByLimit = result.finishReason.unified === 'length';
      const lastText = result.content.findLastIndex((part) => part.type === 'text');
      for (const [at, part] of result.content.entries()) {
        if (part.type !== 'text') {
          content.push(part);
          continue;
        }
        const restorer = strippedHarmonyRestorerFor(preferredDialects);
        const text = restorer ? restorer.process(part.text) + restorer.flush() : part.text;
        const located = extract(text, toolDefs, preferredDialects);
        const cut = cutByLimit && at === lastText ? callCutByTokenLimit(located, text) : undefined;
        const calls = located.filter((call) => call !== cut);
        // The stream filter over the whole text: the text as a streaming caller would see it, and the
        // reasoning written into it.
        const filter = new AnswerStreamFilter({
          tools: toolDefs,
          ...omitUndefined({ parsers: options.parsers, preferredDialects }),
        });
        const shown = filter.process(text) + filter.flush();
        const reasoning = filter.takeReasoning();
        if (located.length === 0 && reasoning === '' && shown === part.text) {
          content.push(part);
          continue;
        }
        edited = true;
        if (reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
        const visible = located.length > 0 ? withoutToolCallText(text, located, markers) : shown;
        if (visible.trim() !== '') content.push({ ...part, text: visible });
        for (const call of calls) recovered.push(toolCallPart(call, generateId()));
      }
      if (recovered.length === 0) {
        // When the answer holds no call, the reasoning is the last source (left as it is).
        const reasoning = result.content.map((part) => (part.type === 'reasoning' ? part.text : '')).join('');
        const located = reasoning ? extract(reasoning, toolDefs, preferredDialects) : [];
        const cut = cutByLimit ? callCutByTokenLimit(located, reasoning) : undefined;
        for (const call of located) if (call !== cut) recovered.push(toolCallPart(call, generateId()));
      }
      if (recovered.length === 0) return edited ? { ...result, content } : result;
      return {
        ...result,
        content: [...content, ...recovered],
        // An answer the limit cut says so, whatever calls closed before the cut (as a native answer would).
        finishReason: cutByLimit
          ? result.finishReason
          : { unified: 'tool-calls', raw: result.finishReason.raw },
      };
    },
    async wrapStream({ doStream, params, model }) {
      const result = await doStream();
      const toolDefs = toolDefinitionsOf(params);
      if (toolDefs.length === 0) return result;
      const preferredDialects = findModelProfile(model.modelId)?.dialects;
      return {
        ...result,
        stream: result.stream.pipeThrough(
          createRecoveryTransform({ toolDefs, parsers: options.parsers, preferredDialects, generateId }),
        ),
      };
    },
  };
}

/** The recovery middleware with default options (see {@link createRecoveryMiddleware}). */
export const recoveryMiddleware: LanguageModelV4Middleware = createRecoveryMiddleware();

interface RecoveryTransformOptions {
  readonly toolDefs: readonly ToolDefinition[];
  readonly parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry | undefined;
  readonly preferredDialects: readonly string[] | undefined;
  readonly generateId: () => string;
}

// The AI SDK's stream parts around the one AnswerRepair that the recovery gateway uses too.
function createRecoveryTransform(
  options: RecoveryTransformOptions,
): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  const newRepair = (): AnswerRepair =>
    new AnswerRepair({
      tools: options.toolDefs,
      ...omitUndefined({ parsers: options.parsers, preferredDialects: options.preferredDialects }),
    });
  let repair = newRepair();
  let textId: string | undefined;
  let textOpen = false;
  // Reasoning the filter took out of the text: one reasoning part per run of it, closed when text follows.
  let reasoningId: string | undefined;
  let reasoningParts = 0;

  function visible(
    controller: TransformStreamDefaultController<LanguageModelV4StreamPart>,
    output: AnswerRepairOutput,
  ): void {
    if (output.reasoning !== '') {
      if (reasoningId === undefined) {
        reasoningParts += 1;
        reasoningId = `${textId ?? 'text'}-reasoning-${reasoningParts}`;
        controller.enqueue({ type: 'reasoning-start', id: reasoningId });
      }
      controller.enqueue({ type: 'reasoning-delta', id: reasoningId, delta: output.reasoning });
    }
    if (output.text === '' || textId === undefined) return;
    endReasoning(controller);
    controller.enqueue({ type: 'text-delta', id: textId, delta: output.text });
  }

  function endReasoning(controller: TransformStreamDefaultController<LanguageModelV4StreamPart>): void {
    if (reasoningId === undefined) return;
    controller.enqueue({ type: 'reasoning-end', id: reasoningId });
    reasoningId = undefined;
  }

  function finishText(
    controller: TransformStreamDefaultController<LanguageModelV4StreamPart>,
    cutByTokenLimit = false,
  ): AnswerRepairEnd {
    const end = repair.end({ cutByTokenLimit });
    repair = newRepair();
    visible(controller, end);
    endReasoning(controller);
    if (textOpen && textId !== undefined) controller.enqueue({ type: 'text-end', id: textId });
    textOpen = false;
    return end;
  }

  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        case 'text-start':
          textId = part.id;
          textOpen = true;
          controller.enqueue(part);
          return;
        case 'text-delta':
          textId = part.id;
          visible(controller, repair.text(part.delta));
          return;
        case 'text-end':
          // Closed in flush()/finish, once we know whether the held text was a call.
          return;
        case 'reasoning-delta':
          repair.reasoning(part.delta);
          controller.enqueue(part);
          return;
        case 'tool-call':
          repair.nativeCall();
          controller.enqueue(part);
          return;
        case 'finish': {
          // An answer the output token limit ended: the call it cut is not made, and the finish stays `length`.
          const cutByTokenLimit = part.finishReason.unified === 'length';
          const { calls } = finishText(controller, cutByTokenLimit);
          for (const call of calls) controller.enqueue(toolCallPart(call, options.generateId()));
          controller.enqueue(
            calls.length > 0 && !cutByTokenLimit
              ? { ...part, finishReason: { unified: 'tool-calls', raw: part.finishReason.raw } }
              : part,
          );
          return;
        }
        default:
          controller.enqueue(part);
      }
    },
    flush(controller) {
      if (textOpen) finishText(controller);
    },
  });
}

// The tools a recovered call may name: none when the caller forbade tool use, only the named one when the
// caller forced a specific tool.
function toolDefinitionsOf(params: LanguageModelV4CallOptions): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  const choice = params.toolChoice;
  if (choice?.type === 'none') return definitions;
  for (const tool of params.tools ?? []) {
    if (tool.type !== 'function') continue;
    if (choice?.type === 'tool' && choice.toolName !== tool.name) continue;
    definitions.push({
      name: tool.name,
      description: tool.description ?? '',
      parameters: (tool.inputSchema ?? {}) as ToolDefinition['parameters'],
    });
  }
  return definitions;
}

function toolCallPart(
  call: ExtractedToolCall,
  toolCallId: string,
): LanguageModelV4Content & { type: 'tool-call' } {
  return { type: 'tool-call', toolCallId, toolName: call.name, input: JSON.stringify(call.arguments) };
}

function defaultId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return `recovered_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
