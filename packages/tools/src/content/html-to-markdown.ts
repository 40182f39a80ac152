import { createRequire } from 'node:module';

type Dom = {
  readonly parseHTML: typeof import('linkedom').parseHTML;
  readonly Readability: typeof import('@mozilla/readability').Readability;
};

// The DOM implementation and Readability are loaded at the first page read, not with the package: together they
// hold about 25 MB that a server which never opens a URL would keep for nothing.
let dom: Dom | undefined;
function loadDom(): Dom {
  if (dom === undefined) {
    const require = createRequire(import.meta.url);
    dom = {
      parseHTML: (require('linkedom') as typeof import('linkedom')).parseHTML,
      Readability: (require('@mozilla/readability') as typeof import('@mozilla/readability')).Readability,
    };
  }
  return dom;
}

/** Readable text of an HTML page. */
export interface ReadablePage {
  readonly title: string;
  /** Markdown-like text: headings, paragraphs, list items, links with their targets. */
  readonly text: string;
}

const skipped = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'object',
  'head',
  'nav',
  'footer',
]);
const blocks = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'table',
  'tr',
  'ul',
  'ol',
  'pre',
  'blockquote',
  'figure',
  'br',
  'hr',
]);

/**
 * Reduces an HTML page to what a reader sees: Mozilla's Readability picks the main content (the Firefox Reader
 * View algorithm), then the DOM is written out as Markdown-like text. Pages Readability cannot read fall back to
 * the whole body. Scripts, styles and hidden templates never reach the text.
 */
export function htmlToMarkdown(html: string, options: { readonly url?: string } = {}): ReadablePage {
  const { parseHTML, Readability } = loadDom();
  const { document } = parseHTML(html);
  const fallbackTitle = (document.querySelector('title')?.textContent ?? '').trim();
  let root: Element | null = null;
  let title = fallbackTitle;
  try {
    const article = new Readability(document.cloneNode(true) as Document, { charThreshold: 200 }).parse();
    if (article?.content) {
      root = parseHTML(`<html><body>${article.content}</body></html>`).document.body;
      title = article.title?.trim() || fallbackTitle;
    }
  } catch {
    root = null;
  }
  root ??= document.body ?? document.documentElement;
  const parts: string[] = [];
  if (root) write(root, parts, options.url);
  const text = parts
    .join('')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, text };
}

function write(node: Node, parts: string[], baseUrl: string | undefined): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 3) {
      parts.push((child.textContent ?? '').replace(/\s+/g, ' '));
      continue;
    }
    if (child.nodeType !== 1) continue;
    const element = child as Element;
    const tag = element.tagName.toLowerCase();
    if (
      skipped.has(tag) ||
      element.getAttribute('hidden') !== null ||
      element.getAttribute('aria-hidden') === 'true'
    ) {
      continue;
    }
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      parts.push(`\n\n${'#'.repeat(Number(heading[1]))} `);
      write(element, parts, baseUrl);
      parts.push('\n\n');
    } else if (tag === 'li') {
      parts.push('\n- ');
      write(element, parts, baseUrl);
    } else if (tag === 'a') {
      const label: string[] = [];
      write(element, label, baseUrl);
      const text = label.join('').trim();
      const href = resolveLink(element.getAttribute('href'), baseUrl);
      parts.push(href && text ? `[${text}](${href})` : text);
    } else if (tag === 'pre') {
      parts.push(`\n\n\`\`\`\n${element.textContent ?? ''}\n\`\`\`\n\n`);
    } else if (tag === 'td' || tag === 'th') {
      write(element, parts, baseUrl);
      parts.push(' | ');
    } else {
      const block = blocks.has(tag);
      if (block) parts.push('\n\n');
      write(element, parts, baseUrl);
      if (block) parts.push('\n\n');
    }
  }
}

function resolveLink(href: string | null, baseUrl: string | undefined): string | undefined {
  if (!href || href.startsWith('#') || /^\s*javascript:/i.test(href)) return undefined;
  try {
    const url = new URL(href, baseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
