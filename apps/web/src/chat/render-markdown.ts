import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { markedHighlight } from 'marked-highlight';
import { highlightCode } from './highlight-code.ts';

const marked = new Marked(
  markedHighlight({
    langPrefix: 'hljs language-',
    highlight: (code, language) => highlightCode(code, language),
  }),
  { gfm: true, breaks: false, async: false },
);

/** Marked's block lexer (no rendering): splits an answer into its top-level blocks. */
export function lexBlocks(text: string): { raw: string; type: string }[] {
  return marked.lexer(text).map((token) => ({ raw: token.raw, type: token.type }));
}

/** Each code block gets a copy button (markup added after sanitising: it is ours, not the model's). */
const copyButton = '<div class="code-block"><button type="button" class="copy-code">Copy code</button><pre';

const citationPattern = /<a href="[^"]*">\[(\d{1,4})\]<\/a>|\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g;

/** How a citation chip is drawn: whether the number is known and whether a check found it unsupported. */
export interface CitationMarks {
  readonly known: (citationNumber: number) => boolean;
  readonly unsupported: (citationNumber: number) => boolean;
}

function chip(number: number, marks: CitationMarks): string {
  if (!marks.known(number)) return `[${number}]`;
  const unsupported = marks.unsupported(number);
  const label = unsupported ? `Source ${number} (unsupported by its source)` : `Source ${number}`;
  return (
    `<button type="button" class="cite${unsupported ? ' cite-unsupported' : ''}" data-cite="${number}" ` +
    `aria-label="${label}">${number}${unsupported ? '<span aria-hidden="true">!</span>' : ''}</button>`
  );
}

/**
 * Markdown (model output: hostile) to safe HTML: marked renders it, DOMPurify keeps only inert markup (no
 * scripts, handlers, forms or styles), links open in a new tab without a referrer, and `[n]` markers outside code
 * become citation chips. An unfinished stream renders as far as it goes.
 */
export function renderMarkdown(text: string, marks: CitationMarks): string {
  const html = marked.parse(text) as string;
  const clean = DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'img'],
    FORBID_ATTR: ['style'],
  });
  // Split off code so markers inside it stay as they are.
  const parts = clean.split(/(<pre[\s\S]*?<\/pre>|<code[\s\S]*?<\/code>)/);
  const withChips = parts
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part.replace(citationPattern, (_match, linked: string | undefined, list: string | undefined) => {
            const numbers = (linked ?? list ?? '').split(',').map((value) => Number(value.trim()));
            return numbers.map((number) => chip(number, marks)).join('');
          }),
    )
    .join('');
  return withChips
    .replace(/<a /g, '<a target="_blank" rel="noopener noreferrer nofollow" ')
    .replace(/<pre/g, copyButton)
    .replace(/<\/pre>/g, '</pre></div>');
}
