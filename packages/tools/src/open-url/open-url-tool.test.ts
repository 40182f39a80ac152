import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCitationAllocator } from '@toolbus/core';
import { createGuardedFetch, type GuardedFetch } from '@toolbus/core/node';
import { runTool } from '../__fixtures__/run-tool.ts';
import { openDocumentIndex } from '../internal-search/document-index.ts';
import type { DocumentSearchIndex } from '../internal-search/document-search-index.ts';
import { type LoopbackSite, startLoopbackSite } from './__fixtures__/loopback-site.ts';
import { createOpenUrlTool } from './open-url-tool.ts';

describe('open_url against a loopback site, through the guarded fetch', () => {
  let site: LoopbackSite;
  let fetch: GuardedFetch;
  let index: DocumentSearchIndex;
  before(async () => {
    site = await startLoopbackSite({ largePageBytes: 1024 * 1024 });
    // The real guard: loopback is refused unless allowed; only the site's address is allowed, nothing else.
    fetch = createGuardedFetch({ allow: ['127.0.0.1/32'] });
    index = await openDocumentIndex({ path: ':memory:' });
    await index.upsert({
      sourceId: 'handbook.md',
      title: 'Indexed Handbook',
      link: `${site.origin}/indexed/handbook`,
      text: 'The indexed handbook says vacation requests need two weeks notice.',
    });
  });
  after(async () => {
    await index.close();
    await fetch.close();
    await site.close();
  });
  // The time limit is generous because the other pages of the same call (a PDF, a large page through Readability)
  // must finish inside it even on a loaded CI machine; only /slow, which never ends, may reach it.
  const tool = () =>
    createOpenUrlTool({ fetch, index, maxBytes: 256 * 1024, timeoutMs: 20_000, maxCharsPerPage: 4000 });

  test('every kind of page in one call: each succeeds or fails on its own, with a reason the model reads', async () => {
    const urls = [
      `${site.origin}/article`,
      `${site.origin}/hop/3`,
      `${site.origin}/to-metadata`,
      `${site.origin}/large`,
      `${site.origin}/slow`,
      `${site.origin}/report.pdf`,
      `${site.origin}/missing`,
      `${site.origin}/photo.png`,
      `${site.origin}/notes.txt`,
    ];
    const { result, packets, text } = await runTool({
      tool: tool(),
      arguments: { urls },
      startCitationNumber: 5,
    });
    assert.equal(result.outcomes[0]?.status, 'success', text);
    assert.match(text, /^Opened 5 of 9 pages\./);
    // HTML through Readability: the article's text, without navigation, footer, scripts or styles.
    assert.match(
      text,
      /\[5\] Solar Panels Explained\nURL: http:\/\/127\.0\.0\.1:\d+\/article\n[\s\S]*Solar panels turn sunlight into electricity\./,
    );
    assert.doesNotMatch(text, /var secret|color:red|Copyright footer/);
    // The redirect chain is followed to its end; the final URL is the link.
    assert.match(text, /\[6\] Landing Page\nURL: http:\/\/127\.0\.0\.1:\d+\/landing\n/);
    assert.deepEqual(
      site.paths().filter((path) => path.startsWith('/hop') || path === '/landing'),
      ['/hop/3', '/hop/2', '/hop/1', '/hop/0', '/landing'],
    );
    // A redirect to the metadata address is refused by the guard; the page fails, the others succeed.
    assert.match(
      text,
      /Could not open http:\/\/127\.0\.0\.1:\d+\/to-metadata: blocked: .*private, internal or metadata address/,
    );
    // Past maxBytes: reading stopped, the beginning is kept, and the model is told.
    assert.match(
      text,
      /\[7\] Large Page\nURL: [^\n]+\n\(the page is larger than 256 KiB; only its beginning was read\)/,
    );
    assert.match(text, /Could not open http:\/\/127\.0\.0\.1:\d+\/slow: the page did not load within 20 s/);
    assert.match(
      text,
      /\[8\] Quarterly Report\nURL: [^\n]+\/report\.pdf\n[\s\S]*Quarterly revenue grew by 12 percent\./,
    );
    assert.match(
      text,
      /Could not open http:\/\/127\.0\.0\.1:\d+\/missing: the server answered HTTP 404 \(not found\)/,
    );
    assert.match(text, /Could not open [^\n]+\/photo\.png: unsupported content type image\/png/);
    assert.match(text, /\[9\] notes\.txt\n[^\n]+\nPlain notes: the meeting moved to Thursday\./);
    const large = result.outcomes[0]?.response.rich;
    assert.ok(large?.type === 'documents');
    assert.ok(
      large.documents.every((document) => document.content.length <= 4000 + 20),
      'content capped per page',
    );
    // Packets: the URLs before fetching, progress per page, the documents after.
    const types = packets.map((packet) => packet.obj.type);
    assert.ok(types.indexOf('open-url-urls') < types.indexOf('tool-progress'));
    assert.ok(types.lastIndexOf('tool-progress') < types.indexOf('search-documents'));
    assert.equal(types.filter((type) => type === 'tool-progress').length, 9);
    const documents = packets.find((packet) => packet.obj.type === 'search-documents');
    assert.deepEqual(
      documents?.obj.type === 'search-documents' &&
        documents.obj.documents.map((document) => document.citationNumber),
      [5, 6, 7, 8, 9],
    );
  });

  test('a URL in the index is served from it: the server never sees a request for it', async () => {
    const before = site.received.length;
    const { text } = await runTool({
      tool: tool(),
      arguments: { urls: [`${site.origin}/indexed/handbook/?utm_campaign=mail#section`] },
    });
    assert.match(
      text,
      /\[1\] Indexed Handbook\nURL: [^\n]+\/indexed\/handbook\n\(from the indexed copy\)\nThe indexed handbook says/,
    );
    const indexed = site.received.slice(before).filter((request) => request.url?.startsWith('/indexed'));
    assert.equal(indexed.length, 0, 'nothing was fetched');
  });

  test('tracking parameters are dropped before fetching and for the document id; duplicates open once', async () => {
    const before = site.received.length;
    const { result, text } = await runTool({
      tool: tool(),
      arguments: {
        urls: [
          `${site.origin}/tracked?b=2&utm_source=news&a=1&fbclid=xyz`,
          `${site.origin}/tracked?a=1&b=2#comments`,
        ],
      },
    });
    // Count this page's requests only: a page the previous test gave up on may still reach the server late.
    const tracked = site.received.slice(before).filter((request) => request.url?.startsWith('/tracked'));
    assert.equal(tracked.length, 1, 'the same page after normalisation is fetched once');
    assert.match(text, /The query this server saw was \[\?a=1&b=2\]/);
    const rich = result.outcomes[0]?.response.rich;
    assert.deepEqual(rich?.type === 'documents' && rich.documents.map((document) => document.id), [
      `web:${site.origin}/tracked?a=1&b=2`,
    ]);
  });

  test('a page web_search already cited keeps its number; the turn continues after the highest', async () => {
    const citations = createCitationAllocator({ startAt: 1 });
    citations.assign([
      { id: 'web:https://elsewhere.example/', title: 'Other', blurb: '', content: '', sourceType: 'web' },
      {
        id: `web:${site.origin}/article`,
        title: 'Solar (snippet)',
        blurb: '',
        content: 'snippet',
        sourceType: 'web',
      },
    ]);
    const { text } = await runTool({
      tool: tool(),
      arguments: { urls: [`${site.origin}/notes.txt`, `${site.origin}/article/?utm_medium=search`] },
      citations,
    });
    assert.match(text, /\[3\] notes\.txt/);
    assert.match(text, /\[2\] Solar Panels Explained/);
  });

  test('bad URLs, credentials and a URL cap are answered per URL, without fetching', async () => {
    const before = site.received.length;
    const capped = createOpenUrlTool({ fetch, maxUrls: 2 });
    const { text } = await runTool({
      tool: capped,
      arguments: {
        urls: [
          'file:///etc/passwd',
          `http://user:pw@127.0.0.1:${site.port}/article`,
          `${site.origin}/notes.txt`,
        ],
      },
    });
    assert.match(text, /Could not open file:\/\/\/etc\/passwd: not a valid http\(s\) URL/);
    assert.match(
      text,
      /Could not open http:\/\/user:pw@[^:]+:\d+\/article: URLs with a user name or password are not opened/,
    );
    assert.match(text, /Only the first 2 URLs were opened; not opened: [^\n]+\/notes\.txt/);
    assert.equal(site.received.length, before);
    const empty = await runTool({ tool: capped, arguments: { urls: ['  '] } });
    assert.equal(empty.result.outcomes[0]?.status, 'call-error');
  });

  test('an HTML page declaring its charset in a <meta> tag is decoded with it', async () => {
    const { text } = await runTool({ tool: tool(), arguments: { urls: [`${site.origin}/latin1`] } });
    assert.match(text, /\[1\] Caf\u00e9 Menu/);
    assert.match(text, /Cr\u00e8me br\u00fbl\u00e9e costs four euros\./);
  });

  test('a mislabelled PDF is recognised by its signature; a host that does not resolve fails alone', async () => {
    const lookupFetch = createGuardedFetch({
      allow: ['127.0.0.1/32'],
      lookup: (hostname, _options, callback) =>
        setImmediate(() =>
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []),
        ),
    });
    try {
      const { text } = await runTool({
        tool: createOpenUrlTool({ fetch: lookupFetch }),
        arguments: { urls: [`${site.origin}/mislabelled-pdf`, 'https://no-such-host.invalid/page'] },
      });
      assert.match(text, /\[1\] Quarterly Report/);
      assert.match(
        text,
        /Could not open https:\/\/no-such-host\.invalid\/page: the host name does not resolve/,
      );
    } finally {
      await lookupFetch.close();
    }
  });
});
