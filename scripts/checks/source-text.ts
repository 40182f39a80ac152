// Source text with comments and string contents blanked (template expressions kept), so that text checks see code
// only, at the same offsets and line numbers as the original.

/** `source` with every comment and the text of every string literal replaced by spaces (newlines kept). */
export function codeOnly(source: string): string {
  let out = '';
  let index = 0;
  // Template literals nest through `${ ... }`: a stack of brace depths, one per open template expression.
  const templates: number[] = [];
  let braceDepth = 0;
  const blank = (text: string): string => text.replace(/[^\n]/g, ' ');
  while (index < source.length) {
    const char = source[index] as string;
    const next = source[index + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', index);
      const stop = end === -1 ? source.length : end;
      out += blank(source.slice(index, stop));
      index = stop;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', index + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += blank(source.slice(index, stop));
      index = stop;
    } else if (char === "'" || char === '"') {
      let stop = index + 1;
      while (stop < source.length && source[stop] !== char && source[stop] !== '\n') {
        stop += source[stop] === '\\' ? 2 : 1;
      }
      out += `${char}${blank(source.slice(index + 1, stop))}${char}`;
      index = stop + 1;
    } else if (char === '`' || (char === '}' && templates.at(-1) === braceDepth)) {
      if (char === '}') templates.pop();
      // Inside template text up to the closing backtick or the next `${`.
      let stop = index + 1;
      while (
        stop < source.length &&
        source[stop] !== '`' &&
        !(source[stop] === '$' && source[stop + 1] === '{')
      ) {
        stop += source[stop] === '\\' ? 2 : 1;
      }
      out += `${char}${blank(source.slice(index + 1, stop))}`;
      if (source[stop] === '`') {
        out += '`';
        index = stop + 1;
      } else {
        out += '${';
        templates.push(braceDepth);
        index = stop + 2;
      }
    } else {
      if (char === '{') braceDepth += 1;
      if (char === '}') braceDepth -= 1;
      out += char;
      index += 1;
    }
  }
  return out;
}

/** The text between the parenthesis at `open` and its match (exclusive), in code-only text. */
export function parenthesised(code: string, open: number): string {
  let depth = 0;
  for (let index = open; index < code.length; index += 1) {
    if (code[index] === '(') depth += 1;
    if (code[index] === ')') {
      depth -= 1;
      if (depth === 0) return code.slice(open + 1, index);
    }
  }
  return code.slice(open + 1);
}

/** The 1-based line of `offset` in `text`. */
export function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}
