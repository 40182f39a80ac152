import type { ToolDefinition } from '@toolbus/spec';
import { callArgumentKeys, callNameKeys, callWrapperKeys } from '../recovery/match-json-tool-calls.ts';
import {
  isWhitespaceCode,
  lowerCaseAscii,
  skipWhitespace,
  toolNamespacePrefixes,
} from '../recovery/text-search.ts';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import { indexToolDefinitions } from '../recovery/tool-schema-index.ts';
import { readActionCallOpening } from './action-call-opening.ts';
import { readStrippedHarmonyCallOpening } from './stripped-harmony-call-opening.ts';

/** What the start of an answer is, so far. */
export type CallStartVerdict =
  | { readonly kind: 'wait' }
  | { readonly kind: 'prose' }
  /**
   * A bracketed value that could be a call is complete at `end`; its body starts at `bodyStart`. `markup`: the
   * value is a fenced block of call markup (a call anywhere in it is the answer's opening).
   */
  | {
      readonly kind: 'complete';
      readonly end: number;
      readonly bodyStart: number;
      readonly markup?: boolean;
      /** The value is in a code fence opened after `Action:` (Command R), which closes after it. */
      readonly fenced?: boolean;
    };

/** Options for {@link CallStartClassifier}. */
export interface CallStartClassifierOptions {
  /** Characters a JSON start may run without a sign of being a call. */
  readonly holdLimit: number;
  /**
   * The dialects' markers: a fenced `xml` block that opens with one of them (a call dialect's, not a channel
   * token) may be a call written as markup.
   */
  readonly markers?: readonly ToolCallMarkupMarker[];
}

/** Where the body of a possible call starts; `named`: a declared tool is already named before it. */
interface Body {
  readonly kind: 'body';
  readonly bodyStart: number;
  readonly isJson: boolean;
  readonly named?: boolean;
  /** The body is a fenced block of call markup. */
  readonly markup?: boolean;
  /** ReAct's `Action Input:` written as a plain line (a one-parameter tool's value): it ends with its line. */
  readonly line?: boolean;
  /** The JSON body is in a fence opened after `Action:` (Command R). */
  readonly fenced?: boolean;
}

const fenceLanguages = ['', 'json', 'tool_code', 'python', 'py', 'tool_call', 'tool_calls', 'xml'];
const maximumFenceLineLength = 24;
const quotedToken = /["']([^"'\n]{1,64})["']/g;

/**
 * Decides, chunk by chunk, whether the visible start of an answer (after whitespace and a code fence opener) is
 * the start of a bare tool call: a JSON object or array, `name(` or `[name(` where `name` is a declared tool (also
 * `functions.name(`, `default_api.name(`, `name.call(`, and `print(name(` inside a `tool_code` / `python`
 * fence), Functionary's `>>>name` newline `{json}`, or gpt-oss's stripped `commentary to=functions.name json{json}`. A JSON start stays a candidate while its first token is a key and, within `holdLimit` characters, it
 * quotes a tool name, a parameter name or a call key. The scan over the body is incremental (each character is
 * looked at once), so holding a long call costs linear time.
 */
export class CallStartClassifier {
  readonly #names = new Set<string>();
  readonly #callees = new Set<string>();
  readonly #signals = new Set<string>();
  readonly #holdLimit: number;
  /** The opening markers of call markup, lower-cased. */
  readonly #markupOpens: readonly string[];
  #bodyStart = -1;
  /**
   * What the body is: a bracketed value, a fenced block of call markup (see {@link #markupBody}), a line
   * (`Body.line`) or a value in a fence opened after `Action:` (`Body.fenced`). One field, not flags: with one
   * field more, instances lose their fast shape (markup-filter-object-shape.test.ts).
   */
  #shape: 'value' | 'markup' | 'line' | 'fenced' = 'value';
  #isJson = false;
  #signal = false;
  #scanned = 0;
  #depth = 0;
  #quote = 0;
  #escaped = false;
  #firstTokenSeen = false;

  constructor(tools: readonly ToolDefinition[], options: CallStartClassifierOptions) {
    this.#holdLimit = options.holdLimit;
    this.#markupOpens = markupOpensOf(options.markers ?? []);
    for (const tool of indexToolDefinitions(tools).values()) {
      this.#names.add(tool.name);
      this.#callees.add(tool.name).add(`${tool.name}.call`);
      this.#signals.add(tool.name);
      for (const prefix of toolNamespacePrefixes) {
        this.#callees.add(`${prefix}${tool.name}`);
        this.#signals.add(`${prefix}${tool.name}`);
      }
      for (const key of tool.properties.keys()) this.#signals.add(key);
    }
    for (const key of [...callNameKeys, ...callArgumentKeys, ...callWrapperKeys]) this.#signals.add(key);
  }

  /** Forgets the answer seen so far (a new stream starts). */
  reset(): void {
    this.#bodyStart = -1;
    this.#shape = 'value';
    this.#isJson = false;
    this.#signal = false;
    this.#scanned = 0;
    this.#depth = 0;
    this.#quote = 0;
    this.#escaped = false;
    this.#firstTokenSeen = false;
  }

  /**
   * Classifies `held`, the visible text so far (each call gets the previous text plus more): the answer's start,
   * or a line after prose that `LineCallStartFinder` found (where a `>` opens only `>>>name`: else it is a quote).
   */
  classify(held: string): CallStartVerdict {
    if (this.#bodyStart < 0) {
      const found = this.#findBody(held);
      if (found.kind !== 'body') return found;
      this.#bodyStart = found.bodyStart;
      this.#isJson = found.isJson;
      this.#shape =
        found.markup === true
          ? 'markup'
          : found.line === true
            ? 'line'
            : found.fenced === true
              ? 'fenced'
              : 'value';
      this.#signal = (!found.isJson && this.#shape !== 'markup') || found.named === true;
      this.#scanned = found.bodyStart;
    }
    if (this.#shape === 'markup') return this.#classifyMarkup(held);
    if (this.#shape === 'line') {
      const newline = held.indexOf('\n', this.#bodyStart);
      return newline < 0 ? { kind: 'wait' } : { kind: 'complete', end: newline, bodyStart: this.#bodyStart };
    }
    const end = this.#scan(held);
    if (end === -2) return { kind: 'prose' };
    if (end >= 0) {
      // A value complete without quoting a tool, a parameter or a call key is data, not a call: released unread
      // (recovery would read no call there), which spares a recovery pass per JSON line after prose.
      if (!this.#signal && !this.#findSignal(held)) return { kind: 'prose' };
      return this.#shape === 'fenced'
        ? { kind: 'complete', end, bodyStart: this.#bodyStart, fenced: true }
        : { kind: 'complete', end, bodyStart: this.#bodyStart };
    }
    // The window is read for a signal once the value closes or outruns it, not at every chunk: once per value.
    if (held.length - this.#bodyStart > this.#holdLimit && !this.#signal && !this.#findSignal(held))
      return { kind: 'prose' };
    return { kind: 'wait' };
  }

  /** Whether the body's first `holdLimit` characters quote a tool name, a parameter name or a call key. */
  #findSignal(held: string): boolean {
    const window = held.slice(this.#bodyStart, this.#bodyStart + this.#holdLimit);
    for (const match of window.matchAll(quotedToken)) {
      if (this.#signals.has(match[1]!.trim())) {
        this.#signal = true;
        return true;
      }
    }
    return false;
  }

  /**
   * A fenced block of call markup is complete at its closing fence; it is prose when no declared tool is named
   * within the hold limit. The closing fence is searched from where the last search ended (linear overall).
   */
  #classifyMarkup(held: string): CallStartVerdict {
    const from = Math.max(this.#bodyStart, this.#scanned - 2);
    const close = held.indexOf('```', from);
    if (close >= 0) return { kind: 'complete', end: close + 3, bodyStart: this.#bodyStart, markup: true };
    this.#scanned = held.length;
    if (!this.#signal) {
      const window = held.slice(this.#bodyStart, this.#bodyStart + this.#holdLimit);
      for (const name of this.#names) {
        if (window.includes(name)) {
          this.#signal = true;
          break;
        }
      }
      if (!this.#signal && held.length - this.#bodyStart > this.#holdLimit) return { kind: 'prose' };
    }
    return { kind: 'wait' };
  }

  /** Advances the bracket scan; the end of the balanced value, -1 while open, -2 when it cannot be a call. */
  #scan(held: string): number {
    let index = this.#scanned;
    for (; index < held.length; index++) {
      const code = held.charCodeAt(index);
      if (this.#quote !== 0) {
        if (this.#escaped) this.#escaped = false;
        else if (code === 0x5c) this.#escaped = true;
        else if (code === this.#quote) this.#quote = 0;
        continue;
      }
      if (this.#isJson && this.#depth > 0 && !this.#firstTokenSeen && !isWhitespaceCode(code)) {
        // `{` must open a key (`"`, `'`) or be empty; `[` must hold an object or a call.
        this.#firstTokenSeen = true;
        if (!(code === 0x22 || code === 0x27 || code === 0x7d || code === 0x7b || code === 0x5d)) {
          this.#scanned = index;
          return -2;
        }
      }
      if (code === 0x22 || code === 0x27) this.#quote = code;
      else if (code === 0x7b || code === 0x5b || code === 0x28) this.#depth++;
      else if (code === 0x7d || code === 0x5d || code === 0x29) {
        this.#depth--;
        if (this.#depth < 0) return -2;
        if (this.#depth === 0) {
          this.#scanned = index + 1;
          return index + 1;
        }
      } else if (code === 0x0a && this.#depth === 0 && index > this.#bodyStart) return -2;
    }
    this.#scanned = index;
    return -1;
  }

  #findBody(held: string): { kind: 'wait' } | { kind: 'prose' } | Body {
    let index = skipWhitespace(held, 0);
    if (index >= held.length) return { kind: 'wait' };
    if (held.charCodeAt(index) === 0x3e) return this.#recipientBody(held, index);
    if (held.charCodeAt(index) === 0x63) {
      // gpt-oss's call header with its special tokens stripped (`commentary to=functions.name json{`).
      const harmony = readStrippedHarmonyCallOpening(held, index, this.#names);
      if (harmony === 'wait') return { kind: 'wait' };
      if (harmony !== 'prose')
        return { kind: 'body', bodyStart: harmony.bodyStart, isJson: true, named: true };
    }
    if (held.charCodeAt(index) === 0x41) {
      const action = readActionCallOpening(held, index, this.#names);
      if (action === 'wait') return { kind: 'wait' };
      if (action !== 'prose') {
        const { bodyStart, json, fenced } = action;
        return { kind: 'body', bodyStart, isJson: json, named: !fenced, line: !json, fenced };
      }
    }
    let fenced = false;
    if (held.charCodeAt(index) === 0x60) {
      if (!'```'.startsWith(held.slice(index, index + 3))) return { kind: 'prose' };
      if (held.length - index < 3) return { kind: 'wait' };
      const lineEnd = held.indexOf('\n', index + 3);
      const language = held
        .slice(index + 3, lineEnd < 0 ? undefined : lineEnd)
        .trim()
        .toLowerCase();
      if (language.length > maximumFenceLineLength) return { kind: 'prose' };
      if (lineEnd < 0)
        return fenceLanguages.some((known) => known.startsWith(language))
          ? { kind: 'wait' }
          : { kind: 'prose' };
      if (!fenceLanguages.includes(language)) return { kind: 'prose' };
      fenced = true;
      index = skipWhitespace(held, lineEnd + 1);
      if (index >= held.length) return { kind: 'wait' };
      if (held.charCodeAt(index) === 0x3c) return this.#markupBody(held, index);
    }
    const first = held[index]!;
    if (first === '{') return { kind: 'body', bodyStart: index, isJson: true };
    if (first === '[') {
      const next = skipWhitespace(held, index + 1);
      if (next >= held.length) return { kind: 'wait' };
      if (held[next] === '{') return { kind: 'body', bodyStart: index, isJson: true };
      const callee = this.#callee(held, next, false);
      return callee === 'call' ? { kind: 'body', bodyStart: index, isJson: false } : callee;
    }
    const callee = this.#callee(held, index, fenced);
    return callee === 'call' ? { kind: 'body', bodyStart: index, isJson: false } : callee;
  }

  /**
   * How a named call may start, for a quick look before a line is held (see `LineCallStartFinder`): the first
   * character code of each callee, and each callee's first two as `first << 16 | second` (`(` after a name of
   * one character). `[` and list markers are the finder's own.
   */
  namedCallStarts(): Set<number> {
    // ReAct's and Command R's `Action:` opens a call too (see `readActionCallOpening`).
    const starts = new Set<number>([0x41, (0x41 << 16) | 0x63]);
    for (const callee of this.#callees) {
      const first = callee.charCodeAt(0);
      starts.add(first).add((first << 16) | (callee.length > 1 ? callee.charCodeAt(1) : 0x28));
    }
    return starts;
  }

  /**
   * Functionary's `>>>name` newline `{json}` at `from`, where `name` is a declared tool: the JSON arguments are
   * the body, and the tool is already named. Anything else after `>` (a quote, a Python prompt) is prose.
   */
  #recipientBody(held: string, from: number): { kind: 'wait' } | { kind: 'prose' } | Body {
    const prompt = held.slice(from, from + 3);
    if (!'>>>'.startsWith(prompt)) return { kind: 'prose' };
    if (prompt.length < 3) return { kind: 'wait' };
    let end = from + 3;
    while (end < held.length && end - from < 256 && /[\w.-]/.test(held[end]!)) end++;
    const name = held.slice(from + 3, end);
    if (end >= held.length) {
      for (const known of this.#names) if (known.startsWith(name)) return { kind: 'wait' };
      return { kind: 'prose' };
    }
    if (!this.#names.has(name)) return { kind: 'prose' };
    const body = skipWhitespace(held, end);
    if (body >= held.length) return { kind: 'wait' };
    return held[body] === '{'
      ? { kind: 'body', bodyStart: body, isJson: true, named: true }
      : { kind: 'prose' };
  }

  /**
   * A fenced block whose first tag, at `from`, opens call markup (`<tool_call>`, `<function_calls>`, …): models
   * quote their call in an `xml` fence, where the markup filter leaves it alone as a code sample. Any other tag
   * is prose at once.
   */
  #markupBody(held: string, from: number): { kind: 'wait' } | { kind: 'prose' } | Body {
    const start = lowerCaseAscii(held.slice(from, from + 64));
    let partial = false;
    for (const open of this.#markupOpens) {
      if (start.startsWith(open)) return { kind: 'body', bodyStart: from, isJson: false, markup: true };
      if (open.startsWith(start)) partial = true;
    }
    return partial ? { kind: 'wait' } : { kind: 'prose' };
  }

  /** Whether a declared tool is being called at `from` (`name(`), possibly inside `print(`. */
  #callee(held: string, from: number, allowPrint: boolean): 'call' | { kind: 'wait' } | { kind: 'prose' } {
    let end = from;
    // Compared by code, not with a regular expression: each line after prose that starts like a name comes here.
    while (end < held.length && end - from < 256 && isNameCode(held.charCodeAt(end))) end++;
    const name = held.slice(from, end);
    if (name === '') return { kind: 'prose' };
    if (end >= held.length) {
      if (allowPrint && 'print'.startsWith(name)) return { kind: 'wait' };
      for (const callee of this.#callees) if (callee.startsWith(name)) return { kind: 'wait' };
      return { kind: 'prose' };
    }
    if (held[end] !== '(') return { kind: 'prose' };
    if (this.#callees.has(name)) return 'call';
    if (allowPrint && name === 'print') {
      const inner = skipWhitespace(held, end + 1);
      if (inner >= held.length) return { kind: 'wait' };
      return this.#callee(held, inner, false);
    }
    return { kind: 'prose' };
  }
}

/** `[\w.]`: an ASCII letter or digit, `_` or `.`. */
function isNameCode(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    isDigitCode(code) ||
    code === 0x5f ||
    code === 0x2e
  );
}

function isDigitCode(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

// A classifier is made per model step, nearly always with the same marker list: its openings are listed once.
const markupOpensByList = new WeakMap<readonly ToolCallMarkupMarker[], readonly string[]>();

function markupOpensOf(markers: readonly ToolCallMarkupMarker[]): readonly string[] {
  let opens = markupOpensByList.get(markers);
  if (opens === undefined) {
    opens = markers
      .filter((marker) => marker.token !== true && marker.reasoning !== true && marker.open.startsWith('<'))
      .map((marker) => lowerCaseAscii(marker.open));
    markupOpensByList.set(markers, opens);
  }
  return opens;
}
