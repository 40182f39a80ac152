import type { ToolDefinition } from '@toolbus/spec';
import { argumentsAt } from '../arguments-at.ts';
import { endOfTurnToken } from '../end-of-turn-tokens.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { createTextScan, lowerBound, type TextScan } from '../text-scan.ts';
import { isWhitespaceCode, readIdentifierEnd } from '../text-search.ts';

/** What names a call's tool in a Harmony header: `to=functions.get_weather`. */
export const harmonyRecipient = 'to=functions.';
const recipient = harmonyRecipient;
const messageMarker = '<|message|>';
const endMarkers = [endOfTurnToken.harmonyCall, endOfTurnToken.harmonyEnd, endOfTurnToken.harmonyReturn];
const headerStarts = ['<|start|>', '<|channel|>'];
const channelMarker = '<|channel|>';
/** The header of a Harmony analysis message (the model's reasoning), which ends at `<|end|>`. */
export const harmonyAnalysisHeader = '<|channel|>analysis<|message|>';
const analysisHeader = harmonyAnalysisHeader;
const assistantStart = '<|start|>assistant';

/**
 * OpenAI Harmony (gpt-oss): `<|start|>assistant<|channel|>commentary to=functions.get_weather
 * <|constrain|>json<|message|>{json}<|call|>`. The recipient may also sit before `<|channel|>`. The range
 * starts at the header's `<|start|>` (or `<|channel|>`), or at the analysis message right before it, and ends
 * after `<|call|>`.
 *
 * A server that does not parse Harmony passes the whole conversation format through as text, so its markers
 * cover the other messages too: the analysis channel is reasoning (never the answer), the final channel's
 * and a preamble's headers are hidden with the end tokens, and their text is the answer. gpt-oss's chat
 * template refuses a history holding `<|channel|>`, so none of these may stay in what is kept either.
 */
export const harmonyToolCallParser: ToolCallTextParser = {
  name: 'harmony',
  markers: [
    { open: '<|start|>assistant<|channel|>commentary to=', closes: [endOfTurnToken.harmonyCall] },
    { open: '<|channel|>commentary to=', closes: [endOfTurnToken.harmonyCall] },
    { open: '<|start|>assistant to=', closes: [endOfTurnToken.harmonyCall] },
    // The next message's header ends the analysis too: llama-server strips `<|end|>` (and `<|return|>`) alone.
    { open: analysisHeader, closes: [endOfTurnToken.harmonyEnd, assistantStart], reasoning: true },
    { open: assistantStart, closes: [], token: true },
    { open: '<|channel|>final<|message|>', closes: [], token: true },
    { open: '<|channel|>commentary<|message|>', closes: [], token: true },
    { open: endOfTurnToken.harmonyReturn, closes: [], token: true },
  ],
  needles: [recipient, messageMarker, channelMarker, analysisHeader, assistantStart, ...endMarkers],
  // The recipient (words, found by a search of its own) is looked for only when a tool's name follows it.
  detect: (text, scan = createTextScan(text)) =>
    scan.positions(messageMarker, true).length > 0 || scan.positions(recipient, true).length > 0,
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    if (!scan.mayNameToolAfter(toolDefs, recipient)) return [];
    const tools = scan.tools(toolDefs);
    const recipientSearch = scan.search(recipient, true);
    const messageSearch = scan.search(messageMarker, true);
    const endSearches = endMarkers.map((marker) => ({ search: scan.search(marker, true), marker }));
    const calls: LocatedToolCall[] = [];
    // A call found where the rest of the text is claimed by higher-priority dialects would be dropped.
    const claimedFrom = scan.recovered.claimedFrom(text.length);
    let position = 0;
    while (position < text.length) {
      const hit = recipientSearch.next(position);
      if (hit < 0 || hit >= claimedFrom) break;
      position = hit + recipient.length;
      const nameEnd = readIdentifierEnd(text, position);
      const tool = tools.get(text.slice(position, nameEnd)) ?? gluedJsonTool(text, position, nameEnd, tools);
      if (!tool) continue;
      // A server that strips special tokens leaves `to=functions.get_weather json{…}`: a declared tool's name
      // right before its JSON arguments is the evidence then.
      const strippedBody = strippedBodyStart(text, nameEnd);
      // Only where a message's header can stand: a mention in a sentence is no call.
      const strippedStart = strippedBody >= 0 ? strippedHeaderStart(text, hit, calls.length === 0) : -1;
      if (strippedBody >= 0 && strippedStart < 0) continue;
      const message = strippedBody >= 0 ? -1 : messageSearch.next(nameEnd);
      if (strippedBody < 0 && (message < 0 || message - nameEnd > 512)) continue;
      const bodyStart = strippedBody >= 0 ? strippedBody : message + messageMarker.length;
      const written = argumentsAt(text, bodyStart);
      let end = written ? written.end : bodyStart;
      if (!written) {
        const bodyEnd = nextEndMarker(endSearches, bodyStart);
        if (text.slice(bodyStart, bodyEnd < 0 ? text.length : bodyEnd).trim() !== '') {
          // A message body that is not JSON (`queries: refunds`) is an unreadable call, not a zero-argument
          // one: a tool must never run on a guess. The stream filter hides it like any block shaped as a call.
          position = bodyEnd < 0 ? text.length : bodyEnd;
          continue;
        }
      }
      end = closingEnd(text, end, endSearches) ?? end;
      calls.push({
        name: tool.name,
        arguments: written?.arguments ?? {},
        start: strippedBody >= 0 ? strippedStart : withAnalysisBefore(text, scan, headerStart(text, hit)),
        end,
      });
      position = end;
    }
    return calls;
  },
};

/**
 * gpt-oss sometimes glues the content type to the recipient (`to=functions.get_weatherjson`, as reported to
 * llama.cpp): the tool named by the recipient without that `json`.
 */
function gluedJsonTool<T>(
  text: string,
  start: number,
  end: number,
  tools: ReadonlyMap<string, T>,
): T | undefined {
  return end - start > 4 && text.startsWith('json', end - 4)
    ? tools.get(text.slice(start, end - 4))
    : undefined;
}

/** The token before a call's content type (`<|constrain|>json`), which some servers keep when they strip the rest. */
export const harmonyConstrainToken = '<|constrain|>';
const constrainToken = harmonyConstrainToken;

/**
 * Where the JSON body of a call whose header lost its `<|message|>` starts (` json{…}`, ` <|constrain|>json{…}`,
 * `json{…}` glued to the name), or -1 when the header does not run straight into a JSON object.
 */
function strippedBodyStart(text: string, nameEnd: number): number {
  let at = nameEnd;
  while (at < text.length && isWhitespaceCode(text.charCodeAt(at))) at++;
  if (text.startsWith(constrainToken, at)) at += constrainToken.length;
  if (text.startsWith('json', at)) at += 'json'.length;
  while (at < text.length && isWhitespaceCode(text.charCodeAt(at))) at++;
  return text.charCodeAt(at) === 0x7b ? at : -1;
}

// The words a stripped header leaves before the recipient: the channel name, glued to the role after
// another message (`…assistantcommentary to=`).
const strippedChannel = /(?:assistant)?(?:commentary|analysis)\s*$/;
const strippedAnalysis = /^\s*analysis(?=[A-Z])/;

/**
 * Where a stripped call header starts: at its channel name (and role) when they stand right before the
 * recipient, where a message's header stands (see {@link opensMessage}); at the very start when the text opens with the stripped analysis message that
 * leads to this, the first call (`analysisThe user wants…assistantcommentary to=…`): that reasoning goes with
 * the call. -1 when no header stands there: `to=functions.…` in a sentence is a mention.
 */
function strippedHeaderStart(text: string, recipientAt: number, first: boolean): number {
  const window = Math.max(0, recipientAt - 32);
  const match = strippedChannel.exec(text.slice(window, recipientAt));
  if (match === null) return -1;
  const start = window + match.index;
  const glued = text.startsWith('assistant', start);
  if (!glued && !opensMessage(text, start)) return -1;
  if (first && glued && strippedAnalysis.test(text)) return 0;
  return start;
}

/**
 * Whether a stripped channel name at `at` stands where a message's header can: glued to what precedes it (the
 * server removed the tokens between: `Let me check.commentary to=`), or after only blanks at the text's or a
 * line's start or after a special token. After a word and a space it is a word of a sentence.
 */
function opensMessage(text: string, at: number): boolean {
  let before = at;
  while (before > 0 && (text.charCodeAt(before - 1) === 0x20 || text.charCodeAt(before - 1) === 0x09))
    before--;
  if (before === at || before === 0) return true;
  const previous = text.charCodeAt(before - 1);
  return previous === 0x0a || previous === 0x0d || text.endsWith('|>', before);
}

type EndSearch = { readonly search: ReturnType<TextScan['search']>; readonly marker: string };

/** After the end token that closes a call's message right at `from` (only blanks between), if one does. */
function closingEnd(text: string, from: number, endSearches: readonly EndSearch[]): number | undefined {
  for (const { search, marker } of endSearches) {
    const endHit = search.next(from);
    if (endHit >= 0 && endHit - from <= 16 && text.slice(from, endHit).trim() === '') {
      return endHit + marker.length;
    }
  }
  return undefined;
}

/** Where the first end token at or after `from` starts, or -1. */
function nextEndMarker(endSearches: readonly EndSearch[], from: number): number {
  let first = -1;
  for (const { search } of endSearches) {
    const hit = search.next(from);
    if (hit >= 0 && (first < 0 || hit < first)) first = hit;
  }
  return first;
}

/**
 * Where a call whose header starts at `start` begins once the analysis message right before it is counted in:
 * that reasoning belongs to the call, not to the answer, and gpt-oss's chat template refuses a history whose
 * content holds `<|channel|>` tags, so it must leave the prose with the call.
 */
function withAnalysisBefore(text: string, scan: TextScan, start: number): number {
  let before = start;
  while (before > 0 && isWhitespaceCode(text.charCodeAt(before - 1))) before--;
  if (!text.endsWith('<|end|>', before)) return start;
  // The last channel header before that `<|end|>` must be the analysis one: the message is then all analysis.
  const channels = scan.positions(channelMarker, true);
  const last = channels[lowerBound(channels, before) - 1];
  if (last === undefined || !text.startsWith(analysisHeader, last)) return start;
  return text.endsWith(assistantStart, last) ? last - assistantStart.length : last;
}

function headerStart(text: string, recipientAt: number): number {
  const windowStart = Math.max(0, recipientAt - 64);
  const window = text.slice(windowStart, recipientAt);
  let start = recipientAt;
  for (const marker of headerStarts) {
    const found = window.lastIndexOf(marker);
    if (found >= 0 && windowStart + found < start) start = windowStart + found;
  }
  return start;
}
