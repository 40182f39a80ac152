import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { callCutByTokenLimit } from '../recovery/call-cut-by-token-limit.ts';
import { withCallsCutWhileStreaming } from '../recovery/calls-cut-while-streaming.ts';
import {
  splitTemplateOpenedThinking,
  templateOpensThinking,
  thinkingTag,
} from '../recovery/dialects/thinking-block-parser.ts';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type {
  ExtractedToolCall,
  LocatedToolCall,
  ToolCallTextParser,
} from '../recovery/extracted-tool-call.ts';
import { looksLikeToolCallPayload } from '../recovery/looks-like-tool-call-payload.ts';
import { findModelProfile } from '../recovery/model-profiles.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import { withoutToolCallMarkupTags } from '../recovery/tool-call-markup-marker.ts';
import {
  defaultToolCallMarkupMarkers,
  type ToolCallParserRegistry,
  toolCallMarkupMarkersOf,
} from '../recovery/tool-call-parser-registry.ts';
import { AnswerStreamFilter } from '../streaming/answer-stream-filter.ts';
import {
  type StrippedHarmonyRestorer,
  strippedHarmonyRestorerFor,
} from '../streaming/stripped-harmony-restorer.ts';
import { toolArgumentSchemaOf } from './tool-argument-schema.ts';

const NO_TOOLS = 'The text holds tool-call markup, but the request declared no tool to call.';

/** Options for {@link AnswerRepair}. */
export interface AnswerRepairOptions {
  /** The tools the request offered; with none, only reasoning written into the text is split off. */
  readonly tools: readonly ToolDefinition[];
  /** The model's id: its profile's dialects are tried first (see `findModelProfile`). */
  readonly modelId?: string;
  /** Dialects tried first, instead of the model profile's. */
  readonly preferredDialects?: readonly string[];
  /** Dialect parsers (default: all built-in ones). */
  readonly parsers?: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  /**
   * The chat template opened the model's thinking in the prompt, so the answer starts inside it and only its
   * `</think>` is written: its text goes to the reasoning as it streams, not to the text. Default: from the model
   * id (`templateOpensThinking`: DeepSeek R1, QwQ, Qwen3 thinking releases).
   */
  readonly templateOpensThinking?: boolean;
  /**
   * Check each recovered call's arguments against its tool's JSON schema and drop a call that fails (it is then
   * reported as unreadable). Default false: the turn loop validates arguments itself when the tool runs.
   */
  readonly validateArguments?: boolean;
}

/** What a piece of answer text turned into: the text to show and the reasoning written into it. */
export interface AnswerRepairOutput {
  readonly text: string;
  readonly reasoning: string;
}

/** The end of an answer: the last text and reasoning, the calls recovered from it, and why none could be. */
export interface AnswerRepairEnd extends AnswerRepairOutput {
  readonly calls: readonly ExtractedToolCall[];
  /**
   * Set when the text carried tool-call markup (or a call's shape) but no valid call of a declared tool could be
   * read from it: why, in words. The caller decides whether to show the hidden text after all.
   */
  readonly unreadable: string | undefined;
  /** The text the filter kept off the screen (markup), for a caller that shows it when recovery failed. */
  readonly hiddenText: string;
  /**
   * The answer ended on the output token limit while the model was writing a call (see `isCallCutByTokenLimit`), or
   * with markup no call could be read from: that call is not in `calls`, and `unreadable` says why when no call is.
   */
  readonly truncated: boolean;
}

/** How an answer ended, for {@link AnswerRepair.end}. */
export interface AnswerRepairEndOptions {
  /**
   * The answer ended on the output token limit (`finish_reason: "length"`): a call still being written when the
   * limit struck is left out, not completed (its arguments would be a guess). Calls that closed before it stay.
   */
  readonly cutByTokenLimit?: boolean;
}

/**
 * "A model's answer stream in, the answer as a parser that worked would have returned it out": the one
 * implementation behind the AI SDK recovery middleware and the recovery gateway. Text goes through the answer
 * stream filter as it arrives (markup hidden, an answer that starts like a bare call held back, reasoning written
 * into the text split off); at the end the calls written as text are recovered from the raw text, or from the
 * reasoning when the text holds none. Native calls turn recovery off (the caller says so with {@link nativeCall}).
 */
export class AnswerRepair {
  readonly #tools: readonly ToolDefinition[];
  readonly #filter: AnswerStreamFilter;
  readonly #restorer: StrippedHarmonyRestorer | undefined;
  readonly #extract: (text: string) => LocatedToolCall[];
  /** Reads with every dialect, when {@link #extract} tries preferred dialects first. */
  readonly #readAll: ((text: string) => LocatedToolCall[]) | undefined;
  readonly #validate: boolean;
  readonly #parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry | undefined;
  #raw = '';
  /**
   * The text shown so far, once it differs from the raw text; undefined while every piece was shown as it came
   * (most answers), so the text is not kept twice.
   */
  #shown: string | undefined;
  #reasoning = '';
  #native = false;
  /**
   * Blank text shown before any other (the line between two calls' markup): kept aside until other text follows,
   * and dropped when the answer is recovered calls alone, as a parser that worked returns no text then. Undefined
   * once other text was shown.
   */
  #blankLead: string | undefined = '';
  /** The template opened the thinking, and no text has come yet (see {@link #openingThinking}). */
  #thinkingToOpen: boolean;

  constructor(options: AnswerRepairOptions) {
    this.#tools = options.tools;
    this.#parsers = options.parsers;
    this.#validate = options.validateArguments === true;
    this.#thinkingToOpen = options.templateOpensThinking ?? templateOpensThinking(options.modelId);
    const preferredDialects = options.preferredDialects ?? findModelProfile(options.modelId)?.dialects;
    this.#filter = new AnswerStreamFilter({
      tools: options.tools,
      ...omitUndefined({ parsers: options.parsers, preferredDialects }),
    });
    this.#restorer = strippedHarmonyRestorerFor(preferredDialects);
    this.#extract = (text) =>
      extractLocatedToolCallsFromText(
        text,
        options.tools,
        omitUndefined({ parsers: options.parsers, preferredDialects }),
      );
    this.#readAll =
      preferredDialects !== undefined && preferredDialects.length > 0
        ? (text) =>
            extractLocatedToolCallsFromText(text, options.tools, omitUndefined({ parsers: options.parsers }))
        : undefined;
  }

  /** Feeds a piece of answer text; returns what can be shown now and the reasoning found in it. */
  text(delta: string): AnswerRepairOutput {
    const restored = this.#restorer ? this.#restorer.process(delta) : delta;
    const text = this.#thinkingToOpen ? this.#openingThinking(restored) : restored;
    const shown = this.#afterBlankLead(this.#noteShown(text, this.#filter.process(text)));
    return { text: shown, reasoning: this.#filter.takeReasoning() };
  }

  /** Records reasoning the model streamed as reasoning: the last place calls are looked for. */
  reasoning(delta: string): void {
    this.#reasoning += delta;
  }

  /** The model made a native call: nothing is recovered from its text. */
  nativeCall(): void {
    this.#native = true;
  }

  /**
   * A whole answer, not streamed: {@link text} then {@link end}, the text and reasoning of both together. Thinking
   * the chat template opened (all before a lone `</think>`, see `splitTemplateOpenedThinking`) is split off into
   * the reasoning too, which a stream cannot do once that text is shown.
   */
  whole(content: string, options: AnswerRepairEndOptions = {}): AnswerRepairEnd {
    const first = this.text(content);
    const end = this.end(options);
    const reasoning = first.reasoning + end.reasoning;
    // No call came of the markup: the text as the model wrote it, in its order (a stream can only send the hidden
    // markup after what it showed; a whole answer need not), its reasoning still split off and the blank lines
    // that parted the reasoning from the answer dropped, as the filter drops them.
    const failed = end.calls.length === 0 && end.unreadable !== undefined && end.hiddenText !== '';
    const text = failed ? this.#asWritten().replace(leadingBlankLines, '') : first.text + end.text;
    const hiddenText = failed ? '' : end.hiddenText;
    const split = splitTemplateOpenedThinking(text);
    if (split === undefined) return { ...end, text, reasoning, hiddenText };
    return { ...end, text: split.answer, reasoning: reasoning + split.thinking, hiddenText };
  }

  /** Ends the answer: the rest of the text, and the calls recovered (none after a native call). */
  end(options: AnswerRepairEndOptions = {}): AnswerRepairEnd {
    const end = this.#end(options);
    const lead = this.#blankLead ?? '';
    this.#blankLead = undefined;
    return lead === '' || end.calls.length > 0 ? end : { ...end, text: lead + end.text };
  }

  #end(options: AnswerRepairEndOptions): AnswerRepairEnd {
    const restored = this.#restorer?.flush() ?? '';
    const shown = this.#filter.process(restored) + this.#filter.flush();
    const text = this.#afterBlankLead(this.#noteShown(restored, shown));
    const reasoning = this.#filter.takeReasoning();
    const cutByLimit = options.cutByTokenLimit === true;
    if (this.#native)
      return { text, reasoning, hiddenText: '', calls: [], unreadable: undefined, truncated: false };
    if (this.#tools.length === 0) {
      // No tool to call (none declared, or `tool_choice: "none"`): markup the filter hid is the model's text, and
      // the caller shows it, as for any call that names an undeclared tool.
      if (this.#shown === undefined || !this.#holdsMarkup())
        return { text, reasoning, hiddenText: '', calls: [], unreadable: undefined, truncated: false };
      const hiddenText = this.#hiddenText(this.#shown);
      return { text, reasoning, calls: [], unreadable: NO_TOOLS, hiddenText, truncated: false };
    }
    let located = this.#extract(this.#raw);
    // The calls of the text the filter cut count even when the end's reading, a profile's dialects first, misses
    // them (their text was not shown): read again with every dialect.
    if (this.#readAll !== undefined)
      located = withCallsCutWhileStreaming(this.#raw, located, this.#filter.takeCuts(), this.#readAll);
    let source = this.#raw;
    if (located.length === 0 && this.#reasoning !== '') {
      source = this.#reasoning;
      located = this.#extract(source);
    }
    const calls: ExtractedToolCall[] = [];
    let unreadable: string | undefined;
    const cut = cutByLimit ? callCutByTokenLimit(located, source) : undefined;
    let truncated = cut !== undefined;
    for (const call of located) {
      const problem =
        call === cut
          ? cutOffCallProblem(call.name)
          : this.#validate
            ? this.#argumentProblem(call)
            : undefined;
      if (problem === undefined) calls.push({ name: call.name, arguments: call.arguments });
      else unreadable ??= problem;
    }
    if (calls.length === 0 && unreadable === undefined && this.#holdsMarkup()) {
      truncated = cutByLimit;
      unreadable = `The text holds tool-call markup, but no call of a declared tool could be read from it${cutByLimit ? ': the answer ended on the output token limit, which cut it' : ''}.`;
    }
    const hiddenText =
      calls.length === 0 && unreadable !== undefined && this.#shown !== undefined
        ? this.#hiddenText(this.#shown)
        : '';
    return { text, reasoning, calls, unreadable, hiddenText, truncated };
  }

  // The answer's first text, after the `<think>` the template wrote in the prompt (read as the answer's own, so the
  // filter hands the thinking out as reasoning and recovery reads a closed thinking block); none when the model
  // writes its own `<think>` (a server whose template did not open it). Blank text waits for the first other text.
  #openingThinking(text: string): string {
    const start = text.trimStart();
    if (start === '') return text;
    this.#thinkingToOpen = false;
    const head = start.slice(0, thinkingTag.open.length);
    return thinkingTag.open.startsWith(head) ? text : thinkingTag.open + text;
  }

  // `shown` after the blank lead kept aside, if any (see #blankLead); '' while all shown so far is blank.
  #afterBlankLead(shown: string): string {
    const lead = this.#blankLead;
    if (lead === undefined || shown === '') return shown;
    if (shown.trim() === '') {
      this.#blankLead = lead + shown;
      return '';
    }
    this.#blankLead = undefined;
    return lead + shown;
  }

  // Adds a piece of raw text and what the filter showed of it; returns the latter.
  #noteShown(raw: string, shown: string): string {
    const before = this.#raw;
    this.#raw += raw;
    if (this.#shown !== undefined) this.#shown += shown;
    else if (shown !== raw) this.#shown = before + shown;
    return shown;
  }

  /**
   * What the filter kept off the screen, given what it showed: the raw text less the shown text, less the
   * reasoning blocks it split off (handed out as reasoning already, not to be shown twice).
   */
  #hiddenText(shown: string): string {
    return hiddenPart(this.#asWritten(), shown);
  }

  /** The raw text without its reasoning blocks: the answer as the model wrote it. */
  #asWritten(): string {
    const parsers = this.#parsers;
    const markers = parsers === undefined ? defaultToolCallMarkupMarkers : toolCallMarkupMarkersOf(parsers);
    return withoutToolCallMarkupTags(this.#raw, reasoningMarkersOf(markers));
  }

  #holdsMarkup(): boolean {
    return looksLikeToolCallPayload(this.#raw, undefined, this.#parsers);
  }

  #argumentProblem(call: LocatedToolCall): string | undefined {
    const tool = this.#tools.find((candidate) => candidate.name === call.name);
    if (tool === undefined) return `The text calls ${call.name}, which the request did not declare.`;
    const schema = toolArgumentSchemaOf(tool);
    if (schema === undefined) return undefined;
    const result = schema.safeParse(call.arguments);
    if (result.success) return undefined;
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return `The arguments written for ${call.name} do not match its schema${where}: ${issue?.message ?? 'invalid'}.`;
  }
}

// Why a call the output token limit cut is not recovered, for the caller's report.
function cutOffCallProblem(name: string): string {
  return `The output token limit cut off the call to ${name} while the model was writing it; its arguments are incomplete, so no call was made of it.`;
}

const reasoningMarkersByList = new WeakMap<
  readonly ToolCallMarkupMarker[],
  readonly ToolCallMarkupMarker[]
>();

// The reasoning blocks' markers, one list per marker list (the tag pattern is compiled once per list).
function reasoningMarkersOf(markers: readonly ToolCallMarkupMarker[]): readonly ToolCallMarkupMarker[] {
  let reasoning = reasoningMarkersByList.get(markers);
  if (reasoning === undefined) {
    reasoning = markers.filter((marker) => marker.reasoning === true);
    reasoningMarkersByList.set(markers, reasoning);
  }
  return reasoning;
}

// The filter only ever cuts ranges out of the raw text, so what it kept off the screen is the raw text less the
// shown text taken as a subsequence (one pass, greedy).
function hiddenPart(raw: string, shown: string): string {
  let hidden = '';
  let at = 0;
  for (let index = 0; index < raw.length; index += 1) {
    if (at < shown.length && raw[index] === shown[at]) at += 1;
    else hidden += raw[index];
  }
  return hidden;
}

/** Blank lines opening a text (the first line's indentation is not one). */
const leadingBlankLines = /^(?:[ \t]*\r?\n)+/;
