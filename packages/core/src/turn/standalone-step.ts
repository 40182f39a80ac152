import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { Tool } from '@toolbus/spec';
import { omitUndefined, ToolExecutionError } from '@toolbus/spec';
import { createCitationAllocator } from '../citations/citation-allocator.ts';
import type { PacketSink } from '../emitter/packet-sink.ts';
import type { ModelToolChoice } from '../llm/to-language-model-tools.ts';
import { type LlmStepResult, type RunLlmStepOptions, runLlmStep } from './llm-step.ts';
import { StepPlacement } from './step-placement.ts';

/** Options for {@link runStandaloneStep}. */
export interface StandaloneStepOptions {
  readonly model: LanguageModelV4;
  /** The step's instructions. */
  readonly system: string;
  /** The one message the step reads: everything it needs, written out as text. */
  readonly user: string;
  /** Default: none (the step writes text). */
  readonly tools?: readonly Tool[];
  /** Default `none`. */
  readonly toolChoice?: ModelToolChoice;
  /** Where its packets go, placed from turn 0 (retype or nest them in the sink). */
  readonly sink: PacketSink;
  readonly signal?: AbortSignal;
  readonly stream?: RunLlmStepOptions['stream'];
}

/**
 * One model step that stands alone: a system prompt and one user message, no turn around it, its own citation
 * numbering and nothing cited. A sub-agent's write-up after its loop and a judge's verdict call are such steps;
 * what is fixed here is what makes them alone (turn 0, a fresh placement and allocator, no tool batch).
 */
export function runStandaloneStep(options: StandaloneStepOptions): Promise<LlmStepResult> {
  return runLlmStep({
    model: options.model,
    messages: [
      { role: 'system', content: options.system },
      { role: 'user', content: options.user },
    ],
    tools: options.tools ?? [],
    toolChoice: options.toolChoice ?? 'none',
    turn: 0,
    placement: new StepPlacement(),
    sink: options.sink,
    citations: createCitationAllocator(),
    announcedDocuments: new Set(),
    batch: undefined,
    citing: false,
    ...omitUndefined({ signal: options.signal, stream: options.stream }),
  });
}

/** Options for {@link runWriteUpStep}. */
export interface WriteUpStepOptions extends Omit<StandaloneStepOptions, 'tools' | 'toolChoice'> {
  /** What the calling tool fails with when the step fails or writes nothing (its text is what the model reads). */
  readonly failure: { readonly code: string; readonly message: string };
}

/**
 * A sub-agent tool's closing step: a tool-less {@link runStandaloneStep} whose text is the tool's result. An
 * aborted run throws the abort reason; a step that failed or wrote only white space fails the tool with
 * `failure` (an error packet goes out, the step's error is the cause), so an empty write-up never passes as one.
 */
export async function runWriteUpStep(options: WriteUpStepOptions): Promise<LlmStepResult> {
  const { failure, ...step } = options;
  const result = await runStandaloneStep(step);
  if (options.signal?.aborted) throw options.signal.reason;
  if (result.error || !result.answer.trim()) {
    throw new ToolExecutionError({
      code: failure.code,
      message: failure.message,
      ...omitUndefined({ cause: result.error }),
      emitErrorPacket: true,
    });
  }
  return result;
}
