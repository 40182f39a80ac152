import type { ScriptedDataStep, ScriptedFinish } from './expand-scripted-steps.ts';
import type { ScriptedFinishReason } from './scripted-turn.ts';
import { collapseScriptedSteps, type ScriptedWire } from './scripted-wire.ts';

const finishReasons: Record<ScriptedFinishReason, string> = {
  stop: 'stop',
  'tool-calls': 'tool_calls',
  length: 'length',
  'content-filter': 'content_filter',
};

/**
 * OpenAI Chat Completions streaming (`chat.completion.chunk` objects in `data:` lines, then `data: [DONE]`), as
 * the OpenAI API, vLLM and Ollama write it. Reasoning goes in `delta.reasoning_content` (vLLM, DeepSeek, llama.cpp).
 */
export function createOpenAiChatWire(options: {
  model: string;
  includeUsage: boolean;
  id: string;
}): ScriptedWire {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
    `data: ${JSON.stringify({
      id: options.id,
      object: 'chat.completion.chunk',
      created,
      model: options.model,
      system_fingerprint: 'fp_scripted',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    })}\n\n`;
  return {
    begin: () => chunk({ role: 'assistant', content: '', refusal: null }),
    write(step) {
      switch (step.type) {
        case 'text':
          return chunk({ content: step.text });
        case 'reasoning':
          return chunk({ reasoning_content: step.text });
        case 'tool-call-start':
          return chunk({
            tool_calls: [
              {
                index: step.index,
                id: step.id,
                type: 'function',
                function: { name: step.name, arguments: '' },
              },
            ],
          });
        case 'tool-call-delta':
          return chunk({ tool_calls: [{ index: step.index, function: { arguments: step.argumentsDelta } }] });
        case 'raw':
          return step.data;
      }
    },
    end(finish) {
      let text = chunk({}, finishReasons[finish.reason]);
      if (options.includeUsage) {
        text += `data: ${JSON.stringify({
          id: options.id,
          object: 'chat.completion.chunk',
          created,
          model: options.model,
          choices: [],
          usage: {
            prompt_tokens: finish.inputTokens,
            completion_tokens: finish.outputTokens,
            total_tokens: finish.inputTokens + finish.outputTokens,
          },
        })}\n\n`;
      }
      return `${text}data: [DONE]\n\n`;
    },
    complete(steps, finish) {
      return openAiCompletion({ id: options.id, model: options.model, created, steps, finish });
    },
  };
}

function openAiCompletion(options: {
  id: string;
  model: string;
  created: number;
  steps: readonly ScriptedDataStep[];
  finish: ScriptedFinish;
}): unknown {
  const { text: content, reasoning, calls } = collapseScriptedSteps(options.steps);
  const toolCalls = calls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: options.id,
    object: 'chat.completion',
    created: options.created,
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content === '' && toolCalls.length > 0 ? null : content,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: finishReasons[options.finish.reason],
      },
    ],
    usage: {
      prompt_tokens: options.finish.inputTokens,
      completion_tokens: options.finish.outputTokens,
      total_tokens: options.finish.inputTokens + options.finish.outputTokens,
    },
  };
}

/** The OpenAI error body for a status. */
export function openAiErrorBody(status: number, message: string): unknown {
  const type =
    status === 401
      ? 'invalid_request_error'
      : status === 429
        ? 'rate_limit_exceeded'
        : status >= 500
          ? 'server_error'
          : 'invalid_request_error';
  const code = status === 401 ? 'invalid_api_key' : status === 404 ? 'model_not_found' : null;
  return { error: { message, type, param: null, code } };
}
