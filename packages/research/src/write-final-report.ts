import { ModelStallError, ModelStreamError, type PacketSink } from '@toolbus/core';
import type { LlmStepResult } from '@toolbus/core/step';

/**
 * Runs the final report step, and once more from its start when the model stream dropped while it wrote (a
 * closed connection, an error chunk the provider calls retryable, or a stall between chunks). A long research run
 * is not lost to one dropped connection; a second drop, or any other failure, is the run's error. The text the
 * dropped attempt showed is withdrawn (`message-replace` with nothing) and the new attempt writes at the next turn.
 */
export async function writeFinalReport(options: {
  readonly runStep: (turn: number) => Promise<LlmStepResult>;
  readonly turn: number;
  readonly sink: PacketSink;
  readonly signal?: AbortSignal;
}): Promise<LlmStepResult> {
  const first = await options.runStep(options.turn);
  if (first.error === undefined || options.signal?.aborted === true || !droppedStream(first.error))
    return first;
  if (first.answerStarted)
    options.sink.emitAt({ turn: first.nextTurn - 1, tab: 0 }, { type: 'message-replace', content: '' });
  return options.runStep(first.nextTurn);
}

function droppedStream(error: unknown): boolean {
  if (ModelStreamError.isInstance(error)) return error.connectionClosed !== undefined || error.retryable;
  return ModelStallError.isInstance(error) && error.phase === 'between-chunks';
}
