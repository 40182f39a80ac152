import { type MouseEvent, memo, useMemo } from 'react';
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

/** Sanitised Markdown with citation chips (hover and focus cards come from the enclosing turn). */
export const MarkdownView = memo(function MarkdownView(props: {
  readonly text: string;
  readonly marks: CitationMarks;
  readonly marksVersion: number;
  readonly className?: string;
}) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: marksVersion stands for the marks' content.
  const html = useMemo(() => renderMarkdown(props.text, props.marks), [props.text, props.marksVersion]);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: delegation for the copy buttons (real buttons) inside
    <div
      onClick={copyCode}
      className={`markdown ${props.className ?? ''}`}
      // The HTML went through DOMPurify in renderMarkdown.
      // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised above
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
});
