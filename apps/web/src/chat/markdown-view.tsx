import { memo, useMemo } from 'react';
import { type CitationMarks, renderMarkdown } from './render-markdown.ts';

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
    <div
      className={`markdown ${props.className ?? ''}`}
      // The HTML went through DOMPurify in renderMarkdown.
      // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised above
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
});
