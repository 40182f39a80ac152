// The code blocks of the documentation and the example files they are taken from.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const repoRoot = new URL('../../', import.meta.url).pathname;

/** A fenced code block of a Markdown file, and the example file its marker names (if any). */
export interface CodeBlock {
  readonly document: string;
  readonly line: number;
  readonly language: string;
  readonly code: string;
  readonly example: string | undefined;
  /** Why a program block is not an example (`<!-- not-an-example: REASON -->`): a fragment, or it needs a server. */
  readonly exemption: string | undefined;
}

/** The languages whose blocks must come from an example file: program code a reader copies. */
export const programLanguages: ReadonlySet<string> = new Set([
  'ts',
  'typescript',
  'js',
  'javascript',
  'mjs',
  'tsx',
]);

/** README.md, every package's README and everything under docs/. */
export function documentationFiles(): string[] {
  const files = ['README.md'];
  for (const entry of readdirSync(join(repoRoot, 'packages'))) {
    try {
      readFileSync(join(repoRoot, 'packages', entry, 'README.md'));
      files.push(`packages/${entry}/README.md`);
    } catch {
      // no README
    }
  }
  const walk = (directory: string) => {
    for (const entry of readdirSync(join(repoRoot, directory), { withFileTypes: true })) {
      const path = `${directory}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/**
 * The fenced blocks of `document`. A block taken from an example has `<!-- example: docs/examples/NAME.ts -->` on
 * the line before its fence, and holds that file exactly.
 */
export function codeBlocks(document: string): CodeBlock[] {
  const lines = readFileSync(join(repoRoot, document), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(```+)(\S*)/.exec(lines[index] as string);
    if (!open) continue;
    const fence = open[2] as string;
    const start = index;
    let end = index + 1;
    while (end < lines.length && !(lines[end] as string).trimStart().startsWith(fence)) end += 1;
    const marker = /<!--\s*example:\s*(\S+)\s*-->/.exec(lines[start - 1] ?? '');
    const exemption = /<!--\s*not-an-example:\s*(.+?)\s*-->/.exec(lines[start - 1] ?? '');
    blocks.push({
      document,
      line: start + 1,
      language: open[3] ?? '',
      code: `${lines.slice(start + 1, end).join('\n')}\n`,
      example: marker?.[1],
      exemption: exemption?.[1],
    });
    index = end;
  }
  return blocks;
}

/** The example files, relative to the repository. */
export function exampleFiles(): string[] {
  return readdirSync(join(repoRoot, 'docs/examples'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => relative(repoRoot, join(repoRoot, 'docs/examples', name)));
}
