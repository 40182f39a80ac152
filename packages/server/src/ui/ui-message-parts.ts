import type { CitedDocument, PacketObject } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { UiMessageChunk } from './ui-message-chunks.ts';

/** A tool call whose part is open: its packets are gathered until its output or error chunk is out. */
export interface OpenTool {
  readonly toolCallId: string;
  readonly events: unknown[];
  /** Its output or error chunk is out. */
  answered: boolean;
  /** The message of an `error` packet at the call, for a turn stored before `tool-end` existed. */
  errorText?: string;
}

/** The UI step being written: whether its tool calls started, and what a `reset-step` must send again. */
interface UiStep {
  hasTools: boolean;
  reasoning: string;
  sources: UiMessageChunk[];
}

type ToolEnd = Extract<PacketObject, { type: 'tool-end' }>;

/**
 * The open parts of one UI message while a turn's packets are translated: the text and reasoning parts, the
 * current step, the tool calls (by placement and by id) and the documents sources are named from. Each method
 * yields the chunks that open, close or redo parts. One model cycle is one UI step: its reasoning and text, then
 * its tool calls (`start-step` … `finish-step`, as streamText sends).
 */
export class UiMessageParts {
  text: string | undefined;
  reasoning: string | undefined;
  step: UiStep | undefined;
  /** Open tool calls by placement key, until their section ends. */
  readonly tools = new Map<string, OpenTool>();
  readonly toolsById = new Map<string, OpenTool>();
  /** Cited documents by citation number. */
  readonly documents = new Map<number, CitedDocument>();

  *closeText(): Generator<UiMessageChunk> {
    if (this.text !== undefined) yield { type: 'text-end', id: this.text };
    this.text = undefined;
  }

  *closeReasoning(): Generator<UiMessageChunk> {
    if (this.reasoning !== undefined) yield { type: 'reasoning-end', id: this.reasoning };
    this.reasoning = undefined;
  }

  *closeStep(): Generator<UiMessageChunk> {
    yield* this.closeText();
    yield* this.closeReasoning();
    if (this.step !== undefined) yield { type: 'finish-step' };
    this.step = undefined;
  }

  /** The step content goes in: a new one after the tool calls of the last. */
  *contentStep(): Generator<UiMessageChunk, UiStep> {
    if (this.step?.hasTools) yield* this.closeStep();
    if (this.step === undefined) {
      this.step = { hasTools: false, reasoning: '', sources: [] };
      yield { type: 'start-step' };
    }
    return this.step;
  }

  /** Opens a reasoning part unless one is open; its id comes from the packet's sequence. */
  *openReasoning(sequence: number): Generator<UiMessageChunk, string> {
    if (this.reasoning === undefined) {
      this.reasoning = `reasoning-${sequence}`;
      yield { type: 'reasoning-start', id: this.reasoning };
    }
    return this.reasoning;
  }

  /** Opens a text part unless one is open; its id comes from the packet's sequence. */
  *openText(sequence: number): Generator<UiMessageChunk, string> {
    if (this.text === undefined) {
      this.text = `text-${sequence}`;
      yield { type: 'text-start', id: this.text };
    }
    return this.text;
  }

  /**
   * A `message-replace` (the text held tool calls) redoes the step: `reset-step` drops its parts, and its
   * reasoning, sources and the replacing text are sent again. Only a step without tool calls yet is redone:
   * recovery replaces the text before its calls start.
   */
  *redoStep(sequence: number, content: string): Generator<UiMessageChunk> {
    if (this.step === undefined || this.step.hasTools) return;
    const redone = this.step;
    yield { type: 'reset-step' };
    this.text = undefined;
    this.reasoning = undefined;
    if (redone.reasoning) {
      const id = `reasoning-${sequence}`;
      yield { type: 'reasoning-start', id };
      yield { type: 'reasoning-delta', id, delta: redone.reasoning };
      yield { type: 'reasoning-end', id };
    }
    yield* redone.sources;
    if (content) {
      this.text = `text-${sequence}`;
      yield { type: 'text-start', id: this.text };
      yield { type: 'text-delta', id: this.text, delta: content };
    }
  }

  /** A tool call's part: its input now; its output or error when it ends. */
  *openTool(
    key: string,
    call: {
      readonly toolCallId: string;
      readonly toolName: string;
      readonly title: string;
      readonly input: unknown;
    },
  ): Generator<UiMessageChunk, OpenTool> {
    yield* this.closeText();
    yield* this.closeReasoning();
    if (this.step === undefined) yield { type: 'start-step' };
    this.step = { ...(this.step ?? { reasoning: '', sources: [] }), hasTools: true };
    const { toolCallId, toolName } = call;
    const tool: OpenTool = { toolCallId, events: [], answered: false };
    this.tools.set(key, tool);
    this.toolsById.set(toolCallId, tool);
    yield { type: 'tool-input-start', toolCallId, toolName, title: call.title };
    yield { type: 'tool-input-available', toolCallId, toolName, input: call.input };
    return tool;
  }

  /**
   * A call's output (what the model read, and the tool's own packets) or error at its `tool-end`. A call answered
   * without running (an unknown tool, one over the cap, one merged into another) has no tool-start: its part opens
   * here, so every call the model made shows how it ended.
   */
  *endTool(key: string, end: ToolEnd): Generator<UiMessageChunk> {
    let tool = this.toolsById.get(end.toolCallId);
    if (tool === undefined) {
      tool = yield* this.openTool(key, {
        toolCallId: end.toolCallId,
        toolName: end.toolName,
        title: end.toolName,
        input: {},
      });
    }
    if (tool.answered) return;
    tool.answered = true;
    yield end.error === undefined
      ? {
          type: 'tool-output-available',
          toolCallId: end.toolCallId,
          output: {
            status: end.status,
            result: end.result ?? '',
            durationMs: end.durationMs,
            ...omitUndefined({ mergedInto: end.mergedInto }),
            events: tool.events,
          },
        }
      : { type: 'tool-output-error', toolCallId: end.toolCallId, errorText: end.error.message };
  }

  /** A tool's section ends: a turn stored before tool-end existed has only this to answer its call with. */
  *closeToolSection(key: string): Generator<UiMessageChunk> {
    const tool = this.tools.get(key);
    if (!tool) return;
    this.tools.delete(key);
    if (tool.answered) return;
    tool.answered = true;
    yield tool.errorText === undefined
      ? { type: 'tool-output-available', toolCallId: tool.toolCallId, output: { events: tool.events } }
      : { type: 'tool-output-error', toolCallId: tool.toolCallId, errorText: tool.errorText };
  }

  /** The turn stopped: every open part closes, and a call still unanswered ends in an error. */
  *closeAll(): Generator<UiMessageChunk> {
    yield* this.closeText();
    yield* this.closeReasoning();
    for (const tool of this.tools.values()) {
      if (!tool.answered)
        yield {
          type: 'tool-output-error',
          toolCallId: tool.toolCallId,
          errorText: tool.errorText ?? 'The turn ended before this tool call finished.',
        };
    }
    this.tools.clear();
    yield* this.closeStep();
  }
}
