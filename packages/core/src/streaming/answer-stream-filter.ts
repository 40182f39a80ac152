import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { TextCutWhileStreaming } from '../recovery/calls-cut-while-streaming.ts';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../recovery/extracted-tool-call.ts';
import { hasToolCallShape, holdsToolCall } from '../recovery/holds-tool-call.ts';
import { exampleFramingWindow } from '../recovery/quoted-example.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import {
  defaultToolCallParsers,
  type ToolCallParserRegistry,
} from '../recovery/tool-call-parser-registry.ts';
import { isUnreadableCallMarkup, opensWithSpecialToken } from '../recovery/unreadable-call-markup.ts';
import { withoutToolCallText } from '../recovery/without-tool-call-text.ts';
import type { AnswerStreamFilterOptions } from './answer-stream-filter-options.ts';
import { bracketCallOpener, namespacedCallVerdict } from './bracket-call-opener.ts';
import { CallStartClassifier } from './call-start-classifier.ts';
import { framingContext, opensCode, ShownTail } from './framing-context.ts';
import { callOpensAnswer, opensWithListMarker } from './held-answer-opening.ts';
import { JsonCallOpener, jsonCallKeyFirsts, opensMaybe, opensNo, opensYes } from './json-call-opener.ts';
import { LineCallStartFinder } from './line-call-start-finder.ts';
import { answerMarkersOf } from './parser-markup-markers.ts';
import { ToolCallMarkupStreamFilter } from './tool-call-markup-stream-filter.ts';

export type { AnswerStreamFilterOptions } from './answer-stream-filter-options.ts';

/**
 * `call`: the held text opens with a call; `lineCall`: a held line after prose reads as a call so far, and waits
 * for its line's end to be cut out; `fence`: a code fence after prose holds a call so far, and waits for its
 * closing fence; `framing`: the fence closed, and waits for the prose after it that may call it an example;
 * `bracket`: the end of the text shown within a line may open a call (`[`, `{"na`), and waits (see `#stream`).
 */
type State = 'deciding' | 'call' | 'lineCall' | 'fence' | 'framing' | 'bracket' | 'streaming';

/**
 * The text of a streamed answer that the user should see. It hides tool-call markup (the dialects' markers, also
 * split over chunks) and holds back an answer that starts like a bare call (a JSON value, `name(` or `[name(` of a
 * declared tool, `>>>name`, a fence of JSON, code or call markup) until it cannot be a call of a declared tool
 * (then it is released unchanged) or the stream ends (then its calls are cut out, the prose around them shown).
 * After prose, a line that starts like a call and, within a line of prose, a bracketed or JSON call (see
 * `LineCallStartFinder`, `JsonCallOpener`) are held the same way and decided as recovery decides them after the
 * prose shown: cut out when their line ends (a fence: once the framing after its close is seen), or released
 * unchanged. Other prose streams without delay. A markup block that holds no call is shown as written once it
 * closes; one that holds calls shows the prose around them, one shaped like a call of an undeclared tool nothing.
 * Reasoning (Harmony's analysis channel) goes to `takeReasoning`. `process(chunk)` and `flush()` return the text
 * to show, as `ToolCallMarkupStreamFilter`'s do; the caller keeps the raw text for recovery.
 */
export class AnswerStreamFilter {
  readonly #tools: readonly ToolDefinition[];
  readonly #parsers: readonly ToolCallTextParser[] | ToolCallParserRegistry;
  readonly #markers: readonly ToolCallMarkupMarker[];
  readonly #markup: ToolCallMarkupStreamFilter;
  readonly #classifier: CallStartClassifier | undefined;
  /** The text held is a line after prose (only the named forms count there), not the answer's start. */
  #holdingLine = false;
  /** Finds the lines after prose that may open a named call. */
  readonly #lines: LineCallStartFinder | undefined;
  readonly #preferredDialects: readonly string[] | undefined;
  #state: State;
  #held = '';
  /**
   * Where the JSON value held as a call ends, while the rest of its line is still unseen: a bare value counts as
   * a call only on a line of its own (see the json dialect), so prose after it on that line releases it. In a
   * held fence: where its closing fence is looked for, then where it closes.
   */
  #lineCheckFrom = -1;
  /** The end of the text shown: a line held after prose is read after it, as recovery reads it in the answer. */
  readonly #shownTail: ShownTail | undefined;
  /** The text cut out because recovery read calls in it, since the last {@link takeCuts}. */
  #cuts: TextCutWhileStreaming[] = [];

  constructor(options: AnswerStreamFilterOptions) {
    this.#tools = Array.isArray(options.tools) ? options.tools : [];
    this.#parsers = options.parsers ?? defaultToolCallParsers;
    this.#preferredDialects = options.preferredDialects;
    this.#markers = answerMarkersOf(this.#parsers, this.#tools);
    this.#classifier =
      this.#tools.length > 0
        ? new CallStartClassifier(this.#tools, {
            holdLimit: options.holdLimit ?? 400,
            markers: this.#markers,
          })
        : undefined;
    const starts = this.#classifier?.namedCallStarts();
    // A closed block that holds no call is prose that holds a marker: shown as written. The markup filter meets
    // every `[` (`[TOOL_CALLS]`) and `{"` and says which chunks show one that may open a call: no second search.
    const bracketOpens = starts && bracketCallOpener(starts);
    const json = starts && new JsonCallOpener(this.#tools.map((tool) => tool.name));
    const braceOpens = json && ((text: string, at: number) => json.verdict(text, at) !== opensNo);
    const namespaceOpens =
      starts && ((text: string, at: number) => namespacedCallVerdict(text, at, starts) !== opensNo);
    this.#markup = new ToolCallMarkupStreamFilter(this.#markers, {
      release: (block, opensLine) => this.#withoutCalls(block, true, opensLine),
      ...omitUndefined({ bracketOpens, braceOpens, namespaceOpens }),
      braceKeyFirsts: jsonCallKeyFirsts,
    });
    this.#lines = starts ? new LineCallStartFinder(starts, this.#markup.searchesFor('['), json) : undefined;
    this.#shownTail = this.#classifier ? new ShownTail() : undefined;
    this.#state = this.#classifier ? 'deciding' : 'streaming';
  }

  /** Feeds the next chunk; returns the text that can be shown now (possibly empty). */
  process(chunk: string): string {
    const visible = this.#markup.process(chunk);
    const lines = this.#lines;
    if (lines === undefined) return visible;
    // Prose within a line is shown as it comes: the common case costs one newline search.
    if (this.#state === 'streaming' && !lines.mayStartIn(visible, this.#markup)) return this.#show(visible);
    return this.#stream(visible, this.#markup.mayHaveShownBracket);
  }

  /** The reasoning read since the last call (Harmony's analysis channel), never shown as answer text. */
  takeReasoning(): string {
    return this.#markup.takeReasoning();
  }

  /**
   * The texts cut out of the answer because recovery read calls in them, since the last call: the end of the
   * answer hands them to `withCallsCutWhileStreaming`, so that no call whose text was cut is lost.
   */
  takeCuts(): readonly TextCutWhileStreaming[] {
    const cuts = this.#cuts;
    if (cuts.length > 0) this.#cuts = [];
    return cuts;
  }

  /** Ends the stream: returns the rest of the text to show (held text without its recovered calls). */
  flush(): string {
    const block = this.#markup.openBlock;
    const opensLine = this.#markup.openBlockOpensLine;
    let rest = this.#markup.flush();
    if (block !== undefined) rest = this.#withoutCalls(block, false, opensLine);
    if (this.#state === 'streaming') {
      this.#shownTail?.clear();
      return rest;
    }
    const held = this.#held + rest;
    const calls = this.#extractHeld(held);
    this.#shownTail?.clear();
    this.#held = '';
    this.#state = this.#classifier ? 'deciding' : 'streaming';
    this.#lineCheckFrom = -1;
    this.#lines?.reset();
    this.#holdingLine = false;
    this.#classifier?.reset();
    return calls.length > 0 ? this.#cut(held, calls) : held;
  }

  /**
   * Shows `text` up to a place after prose that starts like a named call, and holds from there. Released text is
   * read again after its decided start, the text after a cut line from its first line (a loop: a chunk may hold
   * many lines). `bracket`: whether `text` may hold a `[` opening a call (the markup filter's word).
   */
  #stream(text: string, bracket: boolean): string {
    const lines = this.#lines as LineCallStartFinder;
    // What ended the text before within a line (`[`, `{"na`) is decided on this text's first characters: prose
    // (`[1]`, `{"note"`) is shown and the text goes on unsearched.
    const verdict =
      this.#state === 'bracket' && text !== '' ? lines.asideVerdict(this.#held + text) : opensYes;
    if (verdict === opensMaybe) this.#held += text;
    if (verdict !== opensYes) return verdict === opensMaybe ? '' : this.#showAside(text, lines);
    let shown = '';
    let rest = text;
    while (rest !== '') {
      if (this.#state === 'bracket') {
        rest = this.#held + rest; // What ended the text before (`[`, `{"na`), read again with what follows it.
        this.#held = '';
        this.#state = 'streaming';
        bracket = true;
      }
      if (this.#state !== 'streaming') {
        lines.noteHeld(bracket);
        const released = this.#hold(rest);
        // #hold may release the held text (the state is then 'streaming', the line finder restarted).
        if ((this.#state as State) !== 'streaming') return shown + released;
        rest = released;
        bracket = lines.takeHeldBracket();
        continue;
      }
      const start = lines.find(rest, bracket, this.#markup);
      if (start < 0) return shown + this.#show(rest);
      shown += this.#show(rest.slice(0, start));
      if (lines.holdPending) {
        // What ends the text within a line and may open a call waits aside: `[1]` or `{"note"` cost no hold.
        this.#held = rest.slice(start);
        this.#state = 'bracket';
        return shown;
      }
      rest = rest.slice(start);
      (this.#classifier as CallStartClassifier).reset();
      this.#holdingLine = true;
      this.#state = 'deciding';
    }
    return shown;
  }

  #hold(visible: string): string {
    if (visible === '') return '';
    this.#held += visible;
    const state = this.#state;
    if (state === 'fence' || state === 'framing') return this.#checkFence();
    if (state === 'call' || state === 'lineCall')
      return this.#lineCheckFrom < 0 ? '' : this.#checkRestOfLine();
    const verdict = (this.#classifier as CallStartClassifier).classify(this.#held);
    if (verdict.kind === 'wait') return '';
    if (verdict.kind === 'complete') {
      const calls = this.#extractHeld(this.#held.slice(0, verdict.end));
      const opens = (call: LocatedToolCall) =>
        verdict.markup === true || callOpensAnswer(this.#held, call.start, verdict.bodyStart);
      if (calls.some(opens)) {
        if (
          this.#holdingLine &&
          (this.#held.startsWith('```') ||
            verdict.fenced === true ||
            opensCode((this.#shownTail as ShownTail).text()))
        ) {
          // A fenced call after prose (a fence opening the line, Command R's `Action: ```json`, or a fence opened
          // within a line before): decided once the fence closes and the prose after it is seen.
          this.#state = verdict.markup === true ? 'framing' : 'fence';
          this.#lineCheckFrom = verdict.markup === true ? verdict.end - 3 : verdict.end;
          return this.#checkFence();
        }
        this.#state = 'call';
        if (verdict.markup !== true) {
          this.#lineCheckFrom = verdict.end;
          return this.#checkRestOfLine();
        }
        return '';
      }
    }
    return this.#release();
  }

  /**
   * Once the line of a held JSON value goes on (prose after it, or its newline), reads the value again with that
   * line: still a call, it stays held; data in a sentence, it is released at once instead of at the end. A call
   * on a line after prose is read again when its line ends: still a call, it is cut out and the text after it
   * streams again (an answer's start stays held to the end, where its calls are cut out with the prose around).
   */
  #checkRestOfLine(): string {
    const from = this.#lineCheckFrom;
    const newline = this.#held.indexOf('\n', from);
    if (newline < 0 && (this.#state === 'lineCall' || this.#held.slice(from).trim() === '')) {
      // Searched from here next time: a long line in many chunks is read once.
      this.#lineCheckFrom = this.#held.length;
      return '';
    }
    const text = this.#held.slice(0, newline < 0 ? undefined : newline);
    const calls = this.#extractHeld(text);
    if (calls.length === 0) return this.#release();
    if (!this.#holdingLine) {
      this.#lineCheckFrom = -1;
      return '';
    }
    if (newline >= 0) return this.#cutLine(text, calls, this.#held.slice(newline + 1));
    this.#state = 'lineCall';
    this.#lineCheckFrom = this.#held.length;
    return '';
  }

  /**
   * A fenced call held after prose: waits for the fence's close, then for the framing recovery reads after it
   * (prose there that calls the block an example makes it one, see `isQuotedExample`), then cuts the block out
   * when recovery still reads a call in it, or releases it unchanged. A fence whose content cannot be a call was
   * released before (by the classifier, at its first character that rules a call out, or once its value closed).
   */
  #checkFence(): string {
    const held = this.#held;
    if (this.#state === 'fence') {
      const close = held.indexOf('```', this.#lineCheckFrom);
      if (close < 0) {
        // Searched from here next time (a close may be split over chunks).
        this.#lineCheckFrom = Math.max(this.#lineCheckFrom, held.length - 2);
        return '';
      }
      this.#state = 'framing';
      this.#lineCheckFrom = close;
    }
    const close = this.#lineCheckFrom;
    const framed = close + 3 + exampleFramingWindow;
    if (held.length < framed) return '';
    const calls = this.#extractHeld(held.slice(0, framed)).filter((call) => call.start < close);
    if (calls.length === 0) return this.#release();
    const lineEnd = held.indexOf('\n', close);
    if (lineEnd < 0) return this.#cutLine(held.slice(0, close + 3), calls, held.slice(close + 3));
    return this.#cutLine(held.slice(0, lineEnd), calls, held.slice(lineEnd + 1));
  }

  /**
   * The held line `line` holds `calls`, and `after` follows its newline: shows what the line says without them
   * and streams `after` from its first line on, which may open a call again.
   */
  #cutLine(line: string, calls: LocatedToolCall[], after: string): string {
    const prose = this.#cut(line, calls);
    this.#state = 'streaming';
    this.#held = '';
    this.#lineCheckFrom = -1;
    this.#holdingLine = false;
    const lines = this.#lines as LineCallStartFinder;
    if (prose === '') {
      lines.restartAtLineStart();
      // An indent or a list marker shown before the call: the line ends, so the next one does not join it.
      return lines.holdOpensLine ? after : `\n${after}`;
    }
    lines.restartDecided();
    return `${prose}\n${after}`;
  }

  /**
   * Releases the held text, whose first line was decided: the line finder reads the lines after it. An answer
   * that opens with a list item is read from its first line (the classifier leaves list items to the finder,
   * which shows the marker and holds only a call after it, as on any line).
   */
  #release(): string {
    this.#state = 'streaming';
    const released = this.#held;
    this.#held = '';
    const lines = this.#lines as LineCallStartFinder;
    if (!this.#holdingLine && opensWithListMarker(released)) lines.restartAtLineStart();
    else if (this.#holdingLine && lines.holdWithinLine) lines.restartWithinLine();
    else lines.restartDecided(!this.#holdingLine);
    return released;
  }

  /** `text` without its `calls`, which are recorded as cut. */
  #cut(text: string, calls: readonly LocatedToolCall[]): string {
    this.#cuts.push({ text, calls });
    return withoutToolCallText(text, calls, this.#markers);
  }

  /** Shows the text set aside, which opens no call, then `text` after it as any text shown. */
  #showAside(text: string, lines: LineCallStartFinder): string {
    const held = this.#held;
    this.#held = '';
    this.#state = 'streaming';
    // A `{` that ended its line: the next line's lead is read again from its start.
    const newline = held.indexOf('\n');
    if (newline >= 0) {
      lines.restartAtLineStart();
      return this.#show(held.slice(0, newline + 1)) + this.#stream(held.slice(newline + 1) + text, true);
    }
    if (!lines.mayStartIn(text, this.#markup)) return this.#show(held) + this.#show(text);
    return this.#show(held) + this.#stream(text, this.#markup.mayHaveShownBracket);
  }

  /** Shows `text`: keeps it with the end of the text shown, the prose a line held after it is read after. */
  #show(text: string): string {
    (this.#shownTail as ShownTail).add(text);
    return text;
  }

  /**
   * The calls recovery reads in `text`, held from the answer's start or from a line's start, at positions in
   * `text`. A line held after prose is read after the prose shown before it (the framing window, from after its
   * last fence), as recovery reads it in the whole answer: that prose may call a fenced block an example.
   */
  #extractHeld(text: string): LocatedToolCall[] {
    const context = this.#holdingLine ? framingContext((this.#shownTail as ShownTail).text()) : '';
    if (context === '') return this.#extract(text);
    const from = context.length;
    const calls: LocatedToolCall[] = [];
    for (const call of this.#extract(context + text))
      if (call.start >= from) calls.push({ ...call, start: call.start - from, end: call.end - from });
    return calls;
  }

  #extract(text: string): LocatedToolCall[] {
    if (this.#tools.length === 0 || text.trim() === '') return [];
    return extractLocatedToolCallsFromText(text, this.#tools, {
      parsers: this.#parsers,
      ...omitUndefined({ preferredDialects: this.#preferredDialects }),
    });
  }

  /**
   * A markup block without its calls; exactly as written when it holds none (it is prose then). A block shaped
   * like a call of an undeclared tool stays hidden: that is a call, never prose. A block that opens its line with
   * a special token (`[TOOL_CALLS]`, `<|…|>`) followed by a structure is the model's call channel: unreadable,
   * it is hidden too (the turn's corrective message tells the model). A tag written after prose on its line
   * ("Docs mention <function=name> together") is a mention unless it holds a declared tool's call.
   */
  #withoutCalls(block: string, closed: boolean, opensLine: boolean): string {
    // Most closed blocks are plainly calls (a JSON name key, an `<invoke name=`): hidden whole, nothing to
    // extract. An unclosed one runs to the end of the stream and may hold prose after its call.
    if (closed && opensLine && this.#tools.length > 0 && hasToolCallShape(block)) {
      this.#cuts.push({ text: block, calls: undefined });
      return '';
    }
    const calls = this.#extract(block);
    if (calls.length > 0) return this.#cut(block, calls);
    const special = opensWithSpecialToken(block);
    if (!opensLine && !special) return block;
    if (opensLine && isUnreadableCallMarkup(block)) return '';
    return holdsToolCall(block, this.#tools, this.#parsers) ? '' : block;
  }
}
