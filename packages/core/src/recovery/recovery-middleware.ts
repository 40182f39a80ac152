import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import type { ToolDefinition } from '@toolbus/spec';
import { ToolCallMarkupStreamFilter } from '../streaming/tool-call-markup-stream-filter.ts';
import { extractLocatedToolCallsFromText } from './extract-tool-calls-from-text.ts';
import type { LocatedToolCall, ToolCallTextParser } from './extracted-tool-call.ts';
import type { ToolCallParserRegistry } from './tool-call-parser-registry.ts';

/** Options for {@link createRecoveryMiddleware}. */
export interface RecoveryMiddlewareOptions {
  /** Dialect parsers (default: all built-in ones). */
  readonly parsers?: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  /** Makes the id of a recovered call (default `recovered_<random hex>`). */
  readonly generateId?: () => string;
}

/**
 * An AI SDK language-model middleware (`LanguageModelV4Middleware`) that gives any AI SDK application the
 * recovery of seed §5: when a model answers with tool calls written as text instead of native tool calls,
 * the text becomes proper `tool-call` parts (finish reason `tool-calls`) and the markup disappears from the
 * text parts. Streaming text passes through a markup filter as it arrives; text that starts like a JSON
 * payload (`{`, `[` or a code fence) is held until the end, since bare JSON calls have no markup to filter.
 * When the text holds no call, calls written in the reasoning are recovered too (the reasoning is not edited).
 * Nothing changes when the model made native calls or when no tools were offered.
 */
export function createRecoveryMiddleware(options: RecoveryMiddlewareOptions = {}): LanguageModelV4Middleware {
  const generateId = options.generateId ?? defaultId;
  const extract = (text: string, toolDefs: readonly ToolDefinition[]): LocatedToolCall[] =>
    extractLocatedToolCallsFromText(text, toolDefs, options.parsers ? { parsers: options.parsers } : {});

  return {
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const toolDefs = toolDefinitionsOf(params);
      if (toolDefs.length === 0 || result.content.some((part) => part.type === 'tool-call')) return result;
      const content: LanguageModelV4Content[] = [];
      const recovered: LanguageModelV4Content[] = [];
      for (const part of result.content) {
        if (part.type !== 'text') {
          content.push(part);
          continue;
        }
        const calls = extract(part.text, toolDefs);
        if (calls.length === 0) {
          content.push(part);
          continue;
        }
        const visible = removeCallText(part.text, calls);
        if (visible.trim() !== '') content.push({ ...part, text: visible });
        for (const call of calls) recovered.push(toolCallPart(call, generateId()));
      }
      if (recovered.length === 0) {
        // Seed §5.3: when the answer holds no call, the reasoning is the last source (left as it is).
        const reasoning = result.content.map((part) => (part.type === 'reasoning' ? part.text : '')).join('');
        for (const call of reasoning ? extract(reasoning, toolDefs) : [])
          recovered.push(toolCallPart(call, generateId()));
      }
      if (recovered.length === 0) return result;
      return {
        ...result,
        content: [...content, ...recovered],
        finishReason: { unified: 'tool-calls', raw: result.finishReason.raw },
      };
    },
    async wrapStream({ doStream, params }) {
      const result = await doStream();
      const toolDefs = toolDefinitionsOf(params);
      if (toolDefs.length === 0) return result;
      return {
        ...result,
        stream: result.stream.pipeThrough(createRecoveryTransform({ toolDefs, extract, generateId })),
      };
    },
  };
}

/** The recovery middleware with default options (see {@link createRecoveryMiddleware}). */
export const recoveryMiddleware: LanguageModelV4Middleware = createRecoveryMiddleware();

interface RecoveryTransformOptions {
  readonly toolDefs: readonly ToolDefinition[];
  readonly extract: (text: string, toolDefs: readonly ToolDefinition[]) => LocatedToolCall[];
  readonly generateId: () => string;
}

function createRecoveryTransform(
  options: RecoveryTransformOptions,
): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  const filter = new ToolCallMarkupStreamFilter();
  let rawText = '';
  let reasoningText = '';
  let sawNativeCall = false;
  // Text is held (not filtered and sent) while everything so far could be a bare JSON payload.
  let holding = true;
  let held = '';
  let textId: string | undefined;
  let textOpen = false;

  function visible(
    controller: TransformStreamDefaultController<LanguageModelV4StreamPart>,
    text: string,
  ): void {
    if (text === '' || textId === undefined) return;
    controller.enqueue({ type: 'text-delta', id: textId, delta: text });
  }

  function finishText(
    controller: TransformStreamDefaultController<LanguageModelV4StreamPart>,
    calls: LocatedToolCall[],
  ): void {
    if (holding) {
      const remaining = calls.length > 0 ? removeCallText(held, calls) : filterOnce(held);
      visible(controller, calls.length > 0 ? remaining.trim() : remaining);
      held = '';
      holding = false;
    } else {
      visible(controller, filter.flush());
    }
    if (textOpen && textId !== undefined) controller.enqueue({ type: 'text-end', id: textId });
    textOpen = false;
  }

  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        case 'text-start':
          textId = part.id;
          textOpen = true;
          controller.enqueue(part);
          return;
        case 'text-delta': {
          textId = part.id;
          rawText += part.delta;
          if (holding) {
            held += part.delta;
            const first = held.trimStart()[0];
            if (first === undefined || first === '{' || first === '[' || first === '`') return;
            holding = false;
            visible(controller, filter.process(held));
            held = '';
            return;
          }
          visible(controller, filter.process(part.delta));
          return;
        }
        case 'text-end':
          // Closed in flush()/finish, once we know whether the held text was a call.
          return;
        case 'reasoning-delta':
          reasoningText += part.delta;
          controller.enqueue(part);
          return;
        case 'tool-call':
          sawNativeCall = true;
          controller.enqueue(part);
          return;
        case 'finish': {
          const calls = sawNativeCall ? [] : options.extract(rawText, options.toolDefs);
          finishText(controller, calls);
          // Seed §5.3: when the answer holds no call, the reasoning is the last source (left as it is).
          if (!sawNativeCall && calls.length === 0 && reasoningText !== '') {
            calls.push(...options.extract(reasoningText, options.toolDefs));
          }
          for (const call of calls) controller.enqueue(toolCallPart(call, options.generateId()));
          controller.enqueue(
            calls.length > 0
              ? { ...part, finishReason: { unified: 'tool-calls', raw: part.finishReason.raw } }
              : part,
          );
          rawText = '';
          reasoningText = '';
          return;
        }
        default:
          controller.enqueue(part);
      }
    },
    flush(controller) {
      if (textOpen || held !== '') finishText(controller, []);
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
  call: LocatedToolCall,
  toolCallId: string,
): LanguageModelV4Content & { type: 'tool-call' } {
  return { type: 'tool-call', toolCallId, toolName: call.name, input: JSON.stringify(call.arguments) };
}

/** Cuts the recovered calls' ranges out of the text, then any remaining markup (empty wrappers). */
function removeCallText(text: string, calls: readonly LocatedToolCall[]): string {
  let result = '';
  let position = 0;
  for (const call of calls) {
    if (call.start < position) continue;
    result += text.slice(position, call.start);
    position = call.end;
  }
  result += text.slice(position);
  return filterOnce(result)
    .replace(/```(?:json|tool_code|python)?\s*```/g, '')
    .trim();
}

function filterOnce(text: string): string {
  const filter = new ToolCallMarkupStreamFilter();
  return filter.process(text) + filter.flush();
}

function defaultId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return `recovered_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
