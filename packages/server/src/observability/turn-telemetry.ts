import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type Context, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  type ChatTurnResult,
  modelEndpointOf,
  rememberModelEndpoint,
  type ToolRunHooks,
} from '@toolbus/core';

/** The tracer name of the server's spans. */
export const TRACER_NAME = '@toolbus/server';

/** What is recorded about a turn. */
export interface TurnTelemetryOptions {
  readonly chatId: string;
  readonly turn: number;
  readonly personaName: string;
  readonly modelName: string;
  readonly model: LanguageModelV4;
  /** Put tool arguments and results on tool spans (default false: they may hold personal data). */
  readonly recordToolContent?: boolean;
}

/** The spans of one turn: the model wrapped to trace each step, the tool hooks, and the turn's end. */
export interface TurnTelemetry {
  readonly model: LanguageModelV4;
  readonly hooks: ToolRunHooks;
  end(result: ChatTurnResult | undefined, failure?: unknown): void;
}

/**
 * OpenTelemetry spans for one turn through `@opentelemetry/api` only (no SDK is forced on users: without one every
 * span is a no-op), named and attributed after the GenAI semantic conventions: `invoke_agent {persona}` for the
 * turn, `chat {model}` for each model step (with token usage and finish reason), `execute_tool {tool}` for each
 * tool call. Tool arguments and results stay out of spans unless `recordToolContent` is set.
 */
export function startTurnTelemetry(options: TurnTelemetryOptions): TurnTelemetry {
  const tracer = trace.getTracer(TRACER_NAME);
  const turnSpan = tracer.startSpan(`invoke_agent ${options.personaName}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': options.personaName,
      'gen_ai.conversation.id': options.chatId,
      'gen_ai.request.model': options.model.modelId,
      'gen_ai.provider.name': options.model.provider,
      'toolbus.turn.index': options.turn,
    },
  });
  const parent = trace.setSpan(context.active(), turnSpan);
  const hooks: ToolRunHooks = {
    onToolCallStart({ call }) {
      const span = tracer.startSpan(
        `execute_tool ${call.name}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': call.name,
            'gen_ai.tool.call.id': call.id,
            'gen_ai.tool.type': 'function',
            ...(options.recordToolContent
              ? { 'gen_ai.tool.call.arguments': JSON.stringify(call.arguments) }
              : {}),
          },
        },
        parent,
      );
      return {
        end(outcome) {
          span.setAttribute('toolbus.tool.status', outcome.status);
          span.setAttribute('toolbus.tool.duration_ms', outcome.durationMs);
          if (options.recordToolContent)
            span.setAttribute('gen_ai.tool.call.result', outcome.response.llmFacing);
          if (outcome.status !== 'success') {
            span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.status });
            span.setAttribute('error.type', outcome.status);
          }
          span.end();
        },
      };
    },
  };
  return {
    model: tracedModel(options.model, tracer, parent),
    hooks,
    end(result, failure) {
      if (result) {
        turnSpan.setAttribute('toolbus.turn.stop_reason', result.stopReason);
        turnSpan.setAttribute('toolbus.turn.cycles', result.cycles);
      }
      const error = result?.error ?? failure;
      if (error !== undefined || result === undefined) {
        const code = (error as { code?: unknown } | undefined)?.code;
        turnSpan.setStatus({
          code: SpanStatusCode.ERROR,
          message: typeof code === 'string' ? code : 'turn_failed',
        });
        turnSpan.setAttribute('error.type', typeof code === 'string' ? code : 'turn_failed');
      }
      turnSpan.end();
    },
  };
}

/** The model with a `chat {model}` span around each streamed step (the endpoint it talks to kept for errors). */
function tracedModel(
  model: LanguageModelV4,
  tracer: ReturnType<typeof trace.getTracer>,
  parent: Context,
): LanguageModelV4 {
  const traced: LanguageModelV4 = {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (callOptions) => model.doGenerate(callOptions),
    async doStream(callOptions) {
      const span = tracer.startSpan(
        `chat ${model.modelId}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': model.provider,
            'gen_ai.request.model': model.modelId,
          },
        },
        parent,
      );
      let result: Awaited<ReturnType<LanguageModelV4['doStream']>>;
      try {
        result = await model.doStream(callOptions);
      } catch (error) {
        endWithError(span, error);
        throw error;
      }
      // Without an SDK (or when sampled out) the span records nothing: the stream is passed on as it is, rather
      // than through one more transform step for every chunk of every turn.
      if (!span.isRecording()) {
        span.end();
        return result;
      }
      let ended = false;
      const finish = (error?: unknown) => {
        if (ended) return;
        ended = true;
        if (error !== undefined) endWithError(span, error);
        else span.end();
      };
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
          transform(part, controller) {
            if (part.type === 'response-metadata' && part.modelId)
              span.setAttribute('gen_ai.response.model', part.modelId);
            if (part.type === 'finish') {
              const input = part.usage.inputTokens.total;
              const output = part.usage.outputTokens.total;
              if (input !== undefined) span.setAttribute('gen_ai.usage.input_tokens', input);
              if (output !== undefined) span.setAttribute('gen_ai.usage.output_tokens', output);
              span.setAttribute('gen_ai.response.finish_reasons', [part.finishReason.unified]);
            }
            if (part.type === 'error') span.setAttribute('error.type', 'stream_error');
            controller.enqueue(part);
          },
          flush() {
            finish();
          },
        }),
      );
      // A stopped turn cancels the stream without flushing it: the span ends then too.
      callOptions.abortSignal?.addEventListener('abort', () => finish(new Error('aborted')), { once: true });
      return { ...result, stream };
    },
  };
  const endpoint = modelEndpointOf(model);
  if (endpoint) rememberModelEndpoint(traced, endpoint);
  return traced;
}

function endWithError(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | undefined)?.code;
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'model_error' });
  span.setAttribute(
    'error.type',
    typeof code === 'string' ? code : error instanceof Error ? error.name : 'model_error',
  );
  span.end();
}
