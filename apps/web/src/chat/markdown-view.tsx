import { type MouseEvent, memo, useMemo, useRef } from 'react';
import { type MarkdownBlocks, splitMarkdownBlocks } from './markdown-blocks.ts';
import { type CitationMarks, renderMarkdown } from './render-markdown.ts';

/**
 * A code block's copy button: its code to the clipboard, and the button says so for a moment. Its name is the words
 * it shows, no separate label, so what a screen reader hears never differs from what is seen (axe's
 * label-content-name-mismatch).
 */
function copyCode(event: MouseEvent) {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button.copy-code');
  const code = button?.parentElement?.querySelector('pre')?.textContent;
  if (!button || code == null) return;
  void navigator.clipboard?.writeText(code).then(
    () => {
      button.textContent = 'Copied';
      setTimeout(() => {
        button.textContent = 'Copy code';
      }, 1500);
    },
    () => {
      button.textContent = 'Copy failed';
    },
  );
}

/** One top-level block, rendered only when its source (or the citation marks) changed. */
const MarkdownBlock = memo(function MarkdownBlock(props: {
  readonly source: string;
  readonly marks: CitationMarks;
  readonly marksVersion: number;
}) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: marksVersion stands for the marks' content.
  const html = useMemo(() => renderMarkdown(props.source, props.marks), [props.source, props.marksVersion]);
  return (
    <div
      className="markdown-block"
      // The HTML went through DOMPurify in renderMarkdown.
      // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised above
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
});

/**
 * Sanitised Markdown with citation chips (hover and focus cards come from the enclosing turn), drawn block by
 * block: while an answer streams only its last block is parsed and drawn again, the finished ones stay as they are.
 */
export const MarkdownView = memo(function MarkdownView(props: {
  readonly text: string;
  readonly marks: CitationMarks;
  readonly marksVersion: number;
  readonly className?: string;
}) {
  const last = useRef<MarkdownBlocks | undefined>(undefined);
  const split = useMemo(() => splitMarkdownBlocks(props.text, last.current), [props.text]);
  last.current = split;
  const definitions = split.definitions ? `\n\n${split.definitions}` : '';
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: delegation for the copy buttons (real buttons) inside
    <div onClick={copyCode} className={`markdown ${props.className ?? ''}`}>
      {split.blocks.map((block, index) => (
        <MarkdownBlock
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks are a sequence; a block's place is its identity
          key={index}
          source={block + definitions}
          marks={props.marks}
          marksVersion={props.marksVersion}
        />
      ))}
    </div>
  );
});
