// Source text for the text checks: the code with comments and string contents blanked (template expressions kept),
// at the same offsets and line numbers as the original, and the comments on their own.
import ts from 'typescript';

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

/** One comment of a source file: its text (with the `//` or `/* *\/` marks) and its 1-based first line. */
export interface SourceComment {
  readonly line: number;
  readonly text: string;
}

/**
 * Every comment of a TypeScript or JavaScript file (JSX included), read with TypeScript's parser so that a `//`
 * inside a string, a template or a regular expression is not taken for one. A run of `//` lines is one comment.
 */
export function commentsOf(source: string): SourceComment[] {
  const file = ts.createSourceFile('comments.tsx', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (found: readonly ts.CommentRange[] | undefined): void => {
    for (const range of found ?? []) ranges.set(range.pos, range);
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(source, node.pos));
    collect(ts.getTrailingCommentRanges(source, node.end));
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  const comments: SourceComment[] = [];
  let previous: { line: number; end: number } | undefined;
  for (const range of [...ranges.values()].sort((a, b) => a.pos - b.pos)) {
    const text = source.slice(range.pos, range.end);
    const line = file.getLineAndCharacterOfPosition(range.pos).line + 1;
    const last = comments.at(-1);
    const continues =
      range.kind === ts.SyntaxKind.SingleLineCommentTrivia &&
      last !== undefined &&
      last.text.startsWith('//') &&
      previous !== undefined &&
      line === previous.line + 1 &&
      source.slice(previous.end, range.pos).trim() === '';
    if (continues && last !== undefined)
      comments[comments.length - 1] = { line: last.line, text: `${last.text}\n${text}` };
    else comments.push({ line, text });
    previous = { line: file.getLineAndCharacterOfPosition(range.end).line + 1, end: range.end };
  }
  return comments;
}
