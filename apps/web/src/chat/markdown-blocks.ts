import { lexBlocks } from './render-markdown.ts';

/** An answer cut into its top-level Markdown blocks, and where the blocks that can no longer change end. */
export interface MarkdownBlocks {
  readonly text: string;
  /** Each block's source, in order (a block's blank lines stay with it). */
  readonly blocks: readonly string[];
  /** Each block's kind (marked's token type: `paragraph`, `list`, `def`…). */
  readonly kinds: readonly string[];
  /** Reference link definitions (`[x]: url`), appended to every block so a reference resolves in any of them. */
  readonly definitions: string;
}

const empty: MarkdownBlocks = { text: '', blocks: [], kinds: [], definitions: '' };

/**
 * Splits `text` into top-level blocks, reusing `previous` when `text` only grew (a streaming answer). New text can
 * change only the last block, or join it to the one before (`2.` after a list becomes its next item), so the blocks
 * before those two are final and only the tail from the second-to-last block on is lexed again. Each
 * frame of a long streamed answer then costs its last block, not the whole answer (which marked, highlight.js and
 * DOMPurify would otherwise parse again on every delta).
 */
export function splitMarkdownBlocks(text: string, previous: MarkdownBlocks = empty): MarkdownBlocks {
  let keep = 0;
  if (previous.blocks.length > 2 && text.startsWith(previous.text)) keep = previous.blocks.length - 2;
  const blocks = previous.blocks.slice(0, keep);
  const kinds = previous.kinds.slice(0, keep);
  const from = blocks.reduce((sum, block) => sum + block.length, 0);
  for (const token of lexBlocks(text.slice(from))) {
    // Blank lines belong to the block before them, so the blocks always add up to the text.
    if (token.type === 'space' && blocks.length > 0) blocks[blocks.length - 1] += token.raw;
    else {
      blocks.push(token.raw);
      kinds.push(token.type);
    }
  }
  const definitions = blocks
    .filter((_, index) => kinds[index] === 'def')
    .map((block) => block.trim())
    .join('\n');
  return { text, blocks, kinds, definitions };
}
