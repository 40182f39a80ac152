import type { ToolDefinition } from '@toolbus/spec';
import { childElementArguments, miniMaxNamespaceToken } from '../child-element-arguments.ts';
import { coerceParameterValue } from '../coerce-parameter-value.ts';
import type { LocatedToolCall, ToolCallTextParser } from '../extracted-tool-call.ts';
import { maximumOpeningTagLength, parseOpeningTag } from '../markup-attributes.ts';
import { recoveryWork } from '../recovery-work.ts';
import { sanitizeJsonValue } from '../sanitize-string.ts';
import { createTextScan, lowerBound, type TextScan } from '../text-scan.ts';
import {
  createForwardSearch,
  decodeXmlEntities,
  type ForwardSearch,
  isWhitespaceCode,
  stripFunctionsPrefix,
} from '../text-search.ts';
import { functionCallsMarker } from '../tool-call-markup-marker.ts';

// A short prefix before the tag name is allowed, for DeepSeek V4's `<｜DSML｜invoke`.
const maximumPrefixLength = 16;

/**
 * The wrappers DeepSeek V3.2 / V4 write when their DSML tokens break: doubled or `‖` bars and a space before the
 * tag name (`<｜｜DSML｜｜ calls>`, `<‖DSML‖tool_calls>`), and the block named `calls`, `tool_calls` or
 * `function_calls` (SGLang #40236, GenericAgent #804, command-code #909). The calls inside read as usual.
 */
const brokenDsmlMarkers = [
  '<｜｜DSML｜｜ calls>',
  '<｜｜DSML｜｜tool_calls>',
  '<｜｜DSML｜｜function_calls>',
  '<‖DSML‖tool_calls>',
  '<‖DSML‖function_calls>',
].map((open) => ({ open, closes: [`</${open.slice(1)}`] }));

/**
 * Anthropic-style XML written as text: `<function_calls><invoke name="x"><parameter name="p" string="true">…
 * </parameter></invoke></function_calls>` (also inside `<minimax:tool_call>` and with DeepSeek V4's `｜DSML｜`
 * tag prefix, and MiniMax M3's `]<]minimax[>[` token before every tag). `string="true"` keeps a value as text;
 * otherwise the tool's schema types it; arguments written as child elements instead of `<parameter>` are read
 * too (see `childElementArguments`). Zero-parameter invokes are calls. The range of a call covers its `<invoke>` element.
 */
export const xmlInvokeToolCallParser: ToolCallTextParser = {
  name: 'xml-invoke',
  markers: [
    functionCallsMarker,
    { open: '<minimax:tool_call>', closes: ['</minimax:tool_call>'] },
    { open: '<｜DSML｜tool_calls>', closes: ['</｜DSML｜tool_calls>'] },
    // DeepSeek V3.2's name for the same wrapper.
    { open: '<｜DSML｜function_calls>', closes: ['</｜DSML｜function_calls>'] },
    { open: '<invoke', closes: ['</invoke>'], requiresTagEnd: true },
    { open: '<｜DSML｜invoke', closes: ['</｜DSML｜invoke>'], requiresTagEnd: true },
    ...brokenDsmlMarkers,
    // MiniMax M3 writes its namespace token before every tag of a call: never text.
    { open: miniMaxNamespaceToken, closes: [], token: true },
  ],
  needles: ['invoke', 'parameter'],
  // Every call's tag opens with `<`; the tags themselves are found from the declared tools' names (see `parse`).
  detect: (text) => text.includes('<'),
  parse(text: string, toolDefs: readonly ToolDefinition[], scan = createTextScan(text)): LocatedToolCall[] {
    const tools = scan.tools(toolDefs);
    // Only punctuation is compared around the needles, so the text itself serves (no lower-cased copy).
    const lower = text;
    const invokeSearch = scan.search('invoke');
    const closeInvokeSearch = closingTagSearch(scan, 'invoke');
    const parameterSearch = scan.search('parameter');
    const closeParameterSearch = closingTagSearch(scan, 'parameter');
    const tagEndSearch = createForwardSearch(text, '>');
    const calls: LocatedToolCall[] = [];
    // Only a tag that names a declared tool can hold a call: the hits are narrowed to those first, from the
    // names' positions, so text full of `<invoke` that names no declared tool costs nothing per tag.
    // Where the rest of the text is claimed by higher-priority dialects, a call found there would be dropped: the
    // loop stops there, and a name there only marks tags whose calls would reach into it (dropped too).
    const claimedFrom = scan.recovered.claimedFrom(text.length);
    const names = namesBefore(scan.toolNamePositions(toolDefs), claimedFrom);
    const hits = names === undefined ? scan.positions('invoke') : invokeHitsNamingTools(text, names);
    let hitIndex = 0;
    let position = 0;
    while (position < text.length) {
      while (hitIndex < hits.length && hits[hitIndex]! < position) hitIndex++;
      if (hitIndex === hits.length || hits[hitIndex]! >= claimedFrom) break;
      const hit = hits[hitIndex++]!;
      position = hit + 6;
      const tagStart = findTagStart(lower, hit);
      if (tagStart < 0 || lower[tagStart + 1] === '/') continue;
      const follower = lower.charCodeAt(hit + 6);
      if (!(isWhitespaceCode(follower) || follower === 0x3e)) continue;
      // A tag that names no declared tool is passed over unparsed (most `<invoke` of hostile text); the `>`
      // is searched forward only, so tags that never close cost one search, not one each.
      const tagEnd = tagEndSearch.next(hit + 6);
      if (tagEnd < 0 || !scan.mayNameTool(toolDefs, hit + 6, tagEnd)) continue;
      // The tag ends at that `>` (as `parseOpeningTag` finds it), so the element's extent is known before its
      // attributes are read: an invoke in text a higher-priority dialect recovered is passed over unread.
      if (tagEnd - (hit + 6) > maximumOpeningTagLength) continue;
      const tagClose = tagEnd + 1;
      const closeHit =
        text.charCodeAt(tagEnd - 1) === 0x2f
          ? { start: tagClose, end: tagClose }
          : findClosingTag(lower, closeInvokeSearch, tagClose, lower.length);
      const bodyEnd = closeHit ? closeHit.start : nextInvokeOrEnd(lower, invokeSearch, tagClose);
      const end = closeHit ? closeHit.end : bodyEnd;
      position = Math.max(position, end);
      // Text a higher-priority dialect recovered: a call here would be dropped, so its body is not read.
      if (scan.recovered.overlaps(tagStart, end)) continue;
      const tag = parseOpeningTag(text, hit + 6);
      if (!tag) continue;
      const name = stripFunctionsPrefix((tag.attributes.get('name') ?? '').trim());
      const tool = tools.get(name);
      if (!tool) continue;
      recoveryWork.characters += end - tagStart;
      const argumentsObject: Record<string, unknown> = {};
      let cursor = tag.end;
      while (cursor < bodyEnd) {
        const parameterHit = parameterSearch.next(cursor);
        if (parameterHit < 0 || parameterHit >= bodyEnd) break;
        cursor = parameterHit + 9;
        const parameterTagStart = findTagStart(lower, parameterHit);
        if (parameterTagStart < 0 || lower[parameterTagStart + 1] === '/') continue;
        const parameterTag = parseOpeningTag(text, parameterHit + 9);
        if (!parameterTag || parameterTag.end > bodyEnd) continue;
        const parameterName = parameterTag.attributes.get('name');
        const parameterClose = parameterTag.selfClosing
          ? { start: parameterTag.end, end: parameterTag.end }
          : findClosingTag(lower, closeParameterSearch, parameterTag.end, bodyEnd);
        const valueEnd = parameterClose && parameterClose.start <= bodyEnd ? parameterClose.start : bodyEnd;
        cursor = parameterClose && parameterClose.end <= bodyEnd ? parameterClose.end : bodyEnd;
        if (parameterName === undefined) continue;
        const stringAttribute = parameterTag.attributes.get('string')?.toLowerCase();
        argumentsObject[parameterName] = coerceParameterValue(
          decodeXmlEntities(parameterValueText(text.slice(parameterTag.end, valueEnd))),
          {
            schema: tool.properties.get(parameterName),
            isString: stringAttribute === 'true' ? true : stringAttribute === 'false' ? false : undefined,
          },
        );
      }
      // No `<parameter>`: MiniMax M3 writes the arguments as child elements (`<city>Oslo</city>`).
      if (Object.keys(argumentsObject).length === 0 && tag.end < bodyEnd) {
        const schema = { properties: Object.fromEntries(tool.properties) };
        Object.assign(argumentsObject, childElementArguments(text.slice(tag.end, bodyEnd), schema));
      }
      calls.push({
        name: tool.name,
        arguments: sanitizeJsonValue(argumentsObject) as Record<string, unknown>,
        start: tagStart,
        end,
      });
    }
    return calls;
  },
};

/**
 * A parameter's value as the model meant it. Laid out on lines of its own (a line break right after the tag, as
 * models write long values), the whitespace around it is layout. Written inline, it keeps its leading whitespace
 * and its line breaks: an edit tool's `old_string` keeps its indentation and its final line break (vLLM's Step3,
 * MiniMax M2 and MiniCPM5 parser tests hold this). Spaces and tabs at its end are dropped: the normalisation of
 * `</parameter >` moves that space there (see `extractLocatedToolCallsFromText`).
 */
function parameterValueText(raw: string): string {
  let at = 0;
  while (at < raw.length && isBlank(raw.charCodeAt(at))) at++;
  const code = raw.charCodeAt(at);
  if (code === 0x0a || code === 0x0d || at === raw.length) return raw.trim();
  let end = raw.length;
  while (end > at && isBlank(raw.charCodeAt(end - 1))) end--;
  return raw.slice(0, end);
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * The `invoke` hits whose tag (up to its first `>`) holds the position of a declared tool's name, in order; all
 * hits when the names were not looked for (too many tools). A hit passed over holds no call, so the parse loop
 * gives the same calls over these as over every hit. Linear: each name's nearest hit finds its `>` by a
 * forward search, and the hits before it are checked only over the gaps between them (each gap once).
 */
export function hitsNamingTools(
  text: string,
  hits: readonly number[],
  names: Int32Array | undefined,
): readonly number[] {
  if (names === undefined) return hits;
  const kept: number[] = [];
  const tagEndSearch = createForwardSearch(text, '>');
  // Hits at or before this index are decided: kept already, or their tag ends before every later name.
  let decided = -1;
  for (const name of names) {
    const last = lowerBound(hits, name - 6 + 1) - 1;
    if (last <= decided) continue;
    const tagEnd = tagEndSearch.next(hits[last]! + 6);
    const from = decided;
    decided = last;
    if (tagEnd < 0 || tagEnd <= name) continue;
    // Earlier hits share this tag end when no `>` stands between their name and the next hit's.
    let first = last;
    while (first - 1 > from && !hasTagEnd(text, hits[first - 1]! + 6, hits[first]! + 6)) first--;
    for (let index = first; index <= last; index++) kept.push(hits[index]!);
  }
  return kept;
}

/**
 * {@link hitsNamingTools} found from the names alone: for each name, the `invoke` written in the stretch before
 * it that holds no `>` (found by one forward search over that stretch), when a `>` closes the tag after the
 * name. Names and stretches both move forward, so the text is read once, and text full of `<invoke` that names
 * no declared tool is not searched for `invoke` at all.
 */
export function invokeHitsNamingTools(text: string, names: Int32Array): number[] {
  const hits: number[] = [];
  const invokes = createForwardSearch(text, 'invoke', true);
  const tagEndSearch = createForwardSearch(text, '>');
  let previousName = -1;
  let lastTagEnd = -1;
  let searchedTo = 0;
  for (const name of names) {
    // The last `>` at or before the name: the one before the previous name, unless one stands in between.
    if (previousName < 0) lastTagEnd = text.lastIndexOf('>', name);
    else if (name !== previousName) {
      const between = tagEndSearch.next(previousName + 1);
      if (between >= 0 && between <= name) lastTagEnd = text.lastIndexOf('>', name);
    }
    previousName = name;
    const after = tagEndSearch.next(name + 1);
    if (after < 0) break;
    // An `invoke` whose name ends after that `>` and at or before the name.
    const from = Math.max(searchedTo, lastTagEnd - 5, 0);
    const to = name - 6;
    for (let hit = invokes.next(from); hit >= 0 && hit <= to; hit = invokes.next(hit + 1)) hits.push(hit);
    searchedTo = Math.max(searchedTo, to + 1);
  }
  return hits;
}

function namesBefore(names: Int32Array | undefined, limit: number): Int32Array | undefined {
  return names === undefined ? undefined : names.subarray(0, lowerBound(names, limit));
}

function hasTagEnd(text: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) if (text.charCodeAt(index) === 0x3e) return true;
  return false;
}

/**
 * Finds the `<` that opens the tag whose name (after an optional short prefix) starts at `nameStart`. A space
 * may follow a prefix that ends in a bar (`<｜｜DSML｜｜ invoke`, as DeepSeek V4 writes it when it breaks).
 */
function findTagStart(lower: string, nameStart: number): number {
  for (let index = nameStart - 1; index >= 0 && nameStart - index <= maximumPrefixLength + 2; index--) {
    const code = lower.charCodeAt(index);
    if (code === 0x3c) return index;
    if (code === 0x3e) return -1;
    if (
      isWhitespaceCode(code) &&
      !(code === 0x20 && index === nameStart - 1 && isBar(lower.charCodeAt(index - 1)))
    )
      return -1;
  }
  return -1;
}

// `|`, `｜` (fullwidth) and `‖`: the bars around DeepSeek's `DSML` tag prefix.
function isBar(code: number): boolean {
  return code === 0x7c || code === 0xff5c || code === 0x2016;
}

/**
 * The next closing tag `</name>` (also `</name >`, also with a short prefix) before `limit`, found by `search`
 * for `name`. Where none was found, none is looked for again (`search` remembers the miss), so unclosed tags
 * cost one scan, not one per tag.
 */
function findClosingTag(
  lower: string,
  search: ClosingTagSearch,
  from: number,
  limit: number,
): TagRange | undefined {
  if (from >= search.noneFrom) return undefined;
  let position = from;
  while (true) {
    const hit = search.next(position);
    if (hit < 0 || hit >= limit) {
      if (hit < 0) search.noneFrom = Math.min(search.noneFrom, from);
      return undefined;
    }
    position = hit + 1;
    const start = findTagStart(lower, hit);
    if (start < 0 || lower[start + 1] !== '/') continue;
    let after = hit + search.length;
    while (after < lower.length && after - hit < 64 && isWhitespaceCode(lower.charCodeAt(after))) after++;
    if (lower.charCodeAt(after) === 0x3e) return { start, end: after + 1 };
  }
}

interface TagRange {
  readonly start: number;
  readonly end: number;
}

/** A forward search for a tag name that also remembers from where on no closing tag exists. */
interface ClosingTagSearch extends ForwardSearch {
  noneFrom: number;
}

function closingTagSearch(scan: TextScan, name: string): ClosingTagSearch {
  return Object.assign(scan.search(name), { noneFrom: Number.POSITIVE_INFINITY });
}
function nextInvokeOrEnd(lower: string, search: ForwardSearch, from: number): number {
  let position = from;
  while (true) {
    const hit = search.next(position);
    if (hit < 0) return lower.length;
    const start = findTagStart(lower, hit);
    if (start >= 0) return start;
    position = hit + 1;
  }
}
