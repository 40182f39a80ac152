import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import { withoutToolCallMarkupTags } from '../recovery/tool-call-markup-marker.ts';
import {
  defaultToolCallMarkupMarkers,
  defaultToolCallParsers,
  type ToolCallParserRegistry,
  toolCallMarkupMarkersOf,
} from '../recovery/tool-call-parser-registry.ts';
import { withoutToolCallText } from '../recovery/without-tool-call-text.ts';
import { CallStartClassifier } from './call-start-classifier.ts';
import { ToolCallMarkupStreamFilter } from './tool-call-markup-stream-filter.ts';

/** Options for {@link AnswerStreamFilter}. */
export interface AnswerStreamFilterOptions {
  /** The tools the model was offered: only calls of these are held back and cut out. */
  readonly tools: readonly ToolDefinition[];
  /** The dialect parsers (default: all built-in ones); their markers are the markup hidden. */
  readonly parsers?: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  /**
   * How many characters an answer that starts like a bare JSON call may run without naming a tool, a
   * parameter or a call key before it is released as prose (default 400).
   */
  readonly holdLimit?: number;
  /** Dialects tried first when cutting calls out (a model profile's, see `findModelProfile`). */
  readonly preferredDialects?: readonly string[];
}

type State = 'deciding' | 'call' | 'streaming';

/**
 * The text of a streamed answer that the user should see. It hides tool-call markup (the dialects' markers, also
 * split over chunks, also a closing marker without its opening one) and holds back an answer that starts like a
 * bare call — a JSON object or array, `name(` or `[name(` of a declared tool, a fenced `json` / `tool_code` /
 * `python` block — until it either cannot be a call of a declared tool (then it is released unchanged, within a
 * few hundred characters) or the stream ends (then the calls are cut out and the prose around them is shown).
 * Prose that does not start like a call streams without delay. An unclosed markup block at the end is
 * recovered, or shown without its tags when it holds no call. Same shape as `ToolCallMarkupStreamFilter`:
 * `process(chunk)` and `flush()` return the text to show. The raw text must be kept by the caller for
 * recovery.
 */
export class AnswerStreamFilter {
  readonly #tools: readonly ToolDefinition[];
  readonly #parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  readonly #markers: readonly ToolCallMarkupMarker[];
  readonly #markup: ToolCallMarkupStreamFilter;
  readonly #classifier: CallStartClassifier | undefined;
  readonly #preferredDialects: readonly string[] | undefined;
  #state: State;
  #held = '';

  constructor(options: AnswerStreamFilterOptions) {
    this.#tools = Array.isArray(options.tools) ? options.tools : [];
    this.#parsers = options.parsers ?? defaultToolCallParsers;
    this.#preferredDialects = options.preferredDialects;
    this.#markers =
      this.#parsers === defaultToolCallParsers
        ? defaultToolCallMarkupMarkers
        : toolCallMarkupMarkersOf(this.#parsers);
    this.#markup = new ToolCallMarkupStreamFilter(this.#markers);
    this.#classifier =
      this.#tools.length > 0
        ? new CallStartClassifier(this.#tools, { holdLimit: options.holdLimit ?? 400 })
        : undefined;
    this.#state = this.#classifier ? 'deciding' : 'streaming';
  }

  /** Feeds the next chunk; returns the text that can be shown now (possibly empty). */
  process(chunk: string): string {
    const visible = this.#markup.process(chunk);
    if (this.#state === 'streaming') return visible;
    return this.#hold(visible);
  }

  /** Ends the stream: returns the rest of the text to show (held text without its recovered calls). */
  flush(): string {
    const block = this.#markup.openBlock;
    let rest = this.#markup.flush();
    if (block !== undefined) {
      const calls = this.#extract(block);
      rest = calls.length > 0 ? withoutToolCallText(block, calls, this.#markers) : this.#untagged(block);
    }
    if (this.#state === 'streaming') return rest;
    const held = this.#held + rest;
    this.#held = '';
    this.#state = this.#classifier ? 'deciding' : 'streaming';
    this.#classifier?.reset();
    const calls = this.#extract(held);
    return calls.length > 0 ? withoutToolCallText(held, calls, this.#markers) : held;
  }

  #hold(visible: string): string {
    if (visible === '') return '';
    this.#held += visible;
    if (this.#state === 'call') return '';
    const verdict = (this.#classifier as CallStartClassifier).classify(this.#held);
    if (verdict.kind === 'wait') return '';
    if (verdict.kind === 'complete') {
      const calls = this.#extract(this.#held.slice(0, verdict.end));
      if (calls.some((call) => callOpensAnswer(this.#held, call.start, verdict.bodyStart))) {
        this.#state = 'call';
        return '';
      }
    }
    this.#state = 'streaming';
    const released = this.#held;
    this.#held = '';
    return released;
  }

  #extract(text: string): LocatedToolCall[] {
    if (this.#tools.length === 0 || text.trim() === '') return [];
    return extractLocatedToolCallsFromText(text, this.#tools, {
      parsers: this.#parsers,
      ...omitUndefined({ preferredDialects: this.#preferredDialects }),
    });
  }

  #untagged(block: string): string {
    return withoutToolCallMarkupTags(block, this.#markers);
  }
}

// A call opens the answer when only whitespace, a fence opener, `[` or `print(` stand before it.
const answerOpening = /^\s*(?:```[\w-]*\s*)?(?:\[\s*|print\(\s*)?$/;

function callOpensAnswer(held: string, callStart: number, bodyStart: number): boolean {
  return callStart <= bodyStart || answerOpening.test(held.slice(0, callStart));
}
