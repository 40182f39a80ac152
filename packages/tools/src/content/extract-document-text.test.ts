import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minimalPdf } from './__fixtures__/minimal-pdf.ts';
import { extractDocumentText } from './extract-document-text.ts';
import { htmlToMarkdown } from './html-to-markdown.ts';

const encode = (text: string) => new TextEncoder().encode(text);

test('PDF text comes out through PDF.js, with the title from its metadata', async () => {
  const extracted = await extractDocumentText({
    bytes: minimalPdf(['Refunds are paid within 14 days.', 'Shipping takes 2 days.'], 'Policy Handbook'),
    mediaType: 'application/pdf',
    name: 'policy.pdf',
  });
  assert.equal(extracted.title, 'Policy Handbook');
  assert.match(extracted.text, /Refunds are paid within 14 days\./);
  assert.match(extracted.text, /Shipping takes 2 days\./);
});

test('HTML is reduced to readable Markdown: headings, lists, links; no scripts or styles', () => {
  const page = htmlToMarkdown(
    `<html><head><title>Docs</title><style>p{color:red}</style><script>steal()</script></head><body>
      <nav>Home | About</nav><h1>Refunds</h1><p>Paid within <b>14</b> days. See <a href="/terms">the terms</a>.</p>
      <ul><li>Card</li><li>Cash</li></ul><div hidden>secret hidden text</div></body></html>`,
    { url: 'https://shop.example/help' },
  );
  assert.equal(page.title, 'Docs');
  assert.match(page.text, /# Refunds/);
  assert.match(page.text, /Paid within 14 days\. See \[the terms\]\(https:\/\/shop\.example\/terms\)\./);
  assert.match(page.text, /- Card\n- Cash/);
  assert.doesNotMatch(page.text, /steal|color:red|secret hidden/);
});

test('JSON becomes path: value lines; Markdown takes its first heading as title; bad input is a typed error', async () => {
  const json = await extractDocumentText({
    bytes: encode('{"plan": {"name": "Pro", "limits": [10, 20]}}'),
    mediaType: 'application/json',
    name: 'plan.json',
  });
  assert.equal(json.text, 'plan.name: Pro\nplan.limits[0]: 10\nplan.limits[1]: 20');
  const markdown = await extractDocumentText({
    bytes: encode('intro\n# Real Title\nbody'),
    mediaType: 'text/markdown',
    name: 'a.md',
  });
  assert.equal(markdown.title, 'Real Title');
  await assert.rejects(
    extractDocumentText({ bytes: encode('{broken'), mediaType: 'application/json', name: 'broken.json' }),
    { code: 'document_unreadable', message: /broken\.json/ },
  );
});
