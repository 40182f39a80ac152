// A safe reader for the Python literals that "pythonic" tool calls use (`[get_weather(city='Oslo', days=3)]`).
// It never evaluates anything: it recognises strings (with escapes), numbers, True/False/None (and JSON's
// true/false/null, which Olmo 3 writes), lists, tuples and dicts, and gives up on anything else.

import { readIdentifierEnd, skipWhitespace } from './text-search.ts';

/** A value read from text and the index just after it. */
export interface ReadValue {
  readonly value: unknown;
  readonly end: number;
}

/** A call `name(key=value, ...)` read from text; a single positional dict is taken as the arguments. */
export interface ReadPythonCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly start: number;
  readonly end: number;
}

const maximumDepth = 32;
const keywords: Record<string, unknown> = {
  True: true,
  False: false,
  None: null,
  true: true,
  false: false,
  null: null,
};

/** Reads one Python literal starting at `from` (whitespace allowed before it). */
export function readPythonLiteral(text: string, from: number, depth = 0): ReadValue | undefined {
  if (depth > maximumDepth) return undefined;
  const start = skipWhitespace(text, from);
  const character = text[start];
  if (character === undefined) return undefined;
  if (character === '"' || character === "'") return readString(text, start);
  if (character === '[' || character === '(') return readSequence(text, start, depth);
  if (character === '{') return readDict(text, start, depth);
  if (character === '-' || character === '+' || character === '.' || (character >= '0' && character <= '9')) {
    return readNumber(text, start);
  }
  const end = readIdentifierEnd(text, start);
  const word = text.slice(start, end);
  if (Object.hasOwn(keywords, word)) return { value: keywords[word], end };
  return undefined;
}

/** Reads `name(arguments)` at `from`; `name` may be dotted (`functions.get_weather`). */
export function readPythonCall(text: string, from: number): ReadPythonCall | undefined {
  const nameEnd = readIdentifierEnd(text, from);
  if (nameEnd === from || text[nameEnd] !== '(') return undefined;
  const name = text.slice(from, nameEnd);
  const argumentsObject: Record<string, unknown> = {};
  let position = skipWhitespace(text, nameEnd + 1);
  let positional: unknown[] = [];
  while (text[position] !== ')') {
    if (position >= text.length) return undefined;
    const keyEnd = readIdentifierEnd(text, position);
    const afterKey = skipWhitespace(text, keyEnd);
    if (keyEnd > position && text[afterKey] === '=' && text[afterKey + 1] !== '=') {
      const read = readPythonLiteral(text, afterKey + 1);
      if (!read) return undefined;
      argumentsObject[text.slice(position, keyEnd)] = read.value;
      position = read.end;
    } else {
      const read = readPythonLiteral(text, position);
      if (!read) return undefined;
      positional = [...positional, read.value];
      position = read.end;
    }
    position = skipWhitespace(text, position);
    if (text[position] === ',') position = skipWhitespace(text, position + 1);
    else if (text[position] !== ')') return undefined;
  }
  if (positional.length > 1) return undefined;
  const only = positional[0];
  if (positional.length === 1) {
    if (typeof only !== 'object' || only === null || Array.isArray(only)) return undefined;
    Object.assign(argumentsObject, only);
  }
  return { name, arguments: argumentsObject, start: from, end: position + 1 };
}

function readString(text: string, start: number): ReadValue | undefined {
  const quote = text[start]!;
  const triple = text.startsWith(quote.repeat(3), start);
  const delimiter = triple ? quote.repeat(3) : quote;
  let position = start + delimiter.length;
  let value = '';
  let segmentStart = position;
  while (position < text.length) {
    const character = text[position]!;
    if (character === '\\') {
      value += text.slice(segmentStart, position);
      const escaped = readEscape(text, position + 1);
      if (!escaped) return undefined;
      value += escaped.value;
      position = escaped.end;
      segmentStart = position;
      continue;
    }
    if (text.startsWith(delimiter, position)) {
      value += text.slice(segmentStart, position);
      return { value, end: position + delimiter.length };
    }
    if (!triple && character === '\n') return undefined;
    position++;
  }
  return undefined;
}

const simpleEscapes: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  a: '\x07',
  '0': '\0',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '\n': '',
};

function readEscape(text: string, position: number): ReadValue | undefined {
  const character = text[position];
  if (character === undefined) return undefined;
  if (Object.hasOwn(simpleEscapes, character)) return { value: simpleEscapes[character], end: position + 1 };
  const width = character === 'x' ? 2 : character === 'u' ? 4 : character === 'U' ? 8 : 0;
  if (width === 0) return { value: '\\' + character, end: position + 1 };
  const hex = text.slice(position + 1, position + 1 + width);
  if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  const code = Number.parseInt(hex, 16);
  if (code > 0x10ffff) return undefined;
  return { value: String.fromCodePoint(code), end: position + 1 + width };
}

function readNumber(text: string, start: number): ReadValue | undefined {
  let end = start;
  while (end < text.length && end - start < 64 && /[0-9eE+\-._xXa-fA-F]/.test(text[end]!)) end++;
  const literal = text.slice(start, end).replaceAll('_', '');
  const value = /^[+-]?0[xX]/.test(literal) ? Number.parseInt(literal, 16) : Number(literal);
  if (literal === '' || !Number.isFinite(value)) return undefined;
  return { value, end };
}

function readSequence(text: string, start: number, depth: number): ReadValue | undefined {
  const closer = text[start] === '[' ? ']' : ')';
  const items: unknown[] = [];
  let position = skipWhitespace(text, start + 1);
  while (text[position] !== closer) {
    const read = readPythonLiteral(text, position, depth + 1);
    if (!read) return undefined;
    items.push(read.value);
    position = skipWhitespace(text, read.end);
    if (text[position] === ',') position = skipWhitespace(text, position + 1);
    else if (text[position] !== closer) return undefined;
  }
  return { value: items, end: position + 1 };
}

function readDict(text: string, start: number, depth: number): ReadValue | undefined {
  const result: Record<string, unknown> = {};
  let position = skipWhitespace(text, start + 1);
  while (text[position] !== '}') {
    const key = readPythonLiteral(text, position, depth + 1);
    if (!key || (typeof key.value !== 'string' && typeof key.value !== 'number')) return undefined;
    position = skipWhitespace(text, key.end);
    if (text[position] !== ':') return undefined;
    const value = readPythonLiteral(text, position + 1, depth + 1);
    if (!value) return undefined;
    result[String(key.value)] = value.value;
    position = skipWhitespace(text, value.end);
    if (text[position] === ',') position = skipWhitespace(text, position + 1);
    else if (text[position] !== '}') return undefined;
  }
  return { value: result, end: position + 1 };
}
