import type { PacketObject } from '@toolbus/spec';
import {
  createThinkToolStreamProcessor,
  type ThinkToolStreamProcessor,
} from '../streaming/think-tool-stream-processor.ts';

/** Options for {@link StepReasoning}. */
export interface StepReasoningOptions {
  /** Emits at the step's current turn, tab 0. */
  readonly emit: (obj: PacketObject) => void;
  /** The section closed: the answer or the calls go one turn later. */
  readonly onClose: () => void;
  /** A section may open only before the answer and the calls started. */
  readonly mayOpen: () => boolean;
}

/**
 * The reasoning of one model step: native reasoning, reasoning the model wrote into its text, and the thoughts it
 * passes to the reasoning tool (`think_tool`), streamed as one reasoning section. The section closes before the
 * answer or the first tool call, which then sit one turn later (`onClose` moves the step's turn on).
 */
export class StepReasoning {
  /** Everything reasoned in this step, native and from the text. */
  text = '';
  private open = false;
  /** Reasoning-tool calls by stream index, and whether their arguments were streamed. */
  private readonly thinking = new Map<number, { processor: ThinkToolStreamProcessor; fed: boolean }>();

  private readonly options: StepReasoningOptions;

  constructor(options: StepReasoningOptions) {
    this.options = options;
  }

  /** Reasoning text: opens the section when it may, then streams it. */
  add(text: string): void {
    if (!text) return;
    if (!this.open && this.options.mayOpen()) {
      this.open = true;
      this.options.emit({ type: 'reasoning-start' });
    }
    this.text += text;
    this.options.emit({ type: 'reasoning-delta', reasoning: text });
  }

  close(): void {
    if (!this.open) return;
    this.options.emit({ type: 'reasoning-end' });
    this.open = false;
    this.options.onClose();
  }

  /** A reasoning-tool call started at `index`: its arguments stream as reasoning. */
  openThinking(index: number): void {
    this.thinking.set(index, { processor: createThinkToolStreamProcessor(), fed: false });
    this.open = true;
    this.options.emit({ type: 'reasoning-start' });
  }

  /** A fragment of a reasoning-tool call's arguments; other calls' fragments are ignored. */
  think(index: number, fragment: string): void {
    const entry = this.thinking.get(index);
    if (!entry) return;
    entry.fed = true;
    const text = entry.processor.process(fragment);
    if (text) this.options.emit({ type: 'reasoning-delta', reasoning: text });
  }

  /**
   * A call ended: a reasoning-tool call whose arguments never streamed gives them now (a provider that sends a
   * call whole), and the section closes either way.
   */
  endCall(index: number, rawArguments: string, isReasoningTool: boolean): void {
    if (isReasoningTool && !this.thinking.has(index)) this.openThinking(index);
    if (this.thinking.get(index)?.fed === false) this.think(index, rawArguments);
    this.thinking.delete(index);
    this.close();
  }
}
