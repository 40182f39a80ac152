import { chunkText, type ScriptedRequest, type ScriptedStep, textSteps } from '@toolbus/core/testing';

/** A self-hosted Qwen's model id: the model profile for Qwen is used, as for a real self-hosted Qwen. */
export const QWEN_MODEL_ID = 'qwen2.5-7b-instruct';

/**
 * A weak model that writes its tool call as text: until a tool result is in, it streams `written()` in small
 * chunks (what recovery must read as a call); then it answers `answer`. `writesFor` limits the text call to the
 * requests it accepts; the others are answered at once.
 */
export function textCallingModel(options: {
  readonly written: () => string;
  readonly answer: string;
  readonly writesFor?: (request: ScriptedRequest) => boolean;
}): (request: ScriptedRequest) => ScriptedStep[] {
  return (request) => {
    const answered = request.messages.some((message) => message.toolResults.length > 0);
    if (answered || options.writesFor?.(request) === false) return textSteps([options.answer]);
    return textSteps(chunkText(options.written(), 5));
  };
}
