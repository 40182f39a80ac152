import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

// The languages answers carry most; others stay plain (highlight.js core keeps the bundle small).
for (const [name, language] of Object.entries({
  bash,
  css,
  javascript,
  json,
  python,
  sql,
  typescript,
  xml,
  yaml,
})) {
  hljs.registerLanguage(name, language);
}

/**
 * Highlighted HTML of a code block (escaped by highlight.js; DOMPurify still runs over the whole answer). A named
 * language it does not know, or no name, is left as plain escaped text: guessing costs time on every streamed
 * chunk and often guesses wrong.
 */
export function highlightCode(code: string, language: string): string {
  const name = language.trim().toLowerCase();
  if (name && hljs.getLanguage(name)) return hljs.highlight(code, { language: name }).value;
  return code.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
