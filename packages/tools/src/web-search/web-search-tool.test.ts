import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, test } from 'node:test';
import { createCitationAllocator } from '@toolbus/core';
import { createGuardedFetch, type GuardedFetchOptions } from '@toolbus/core/node';
import { ToolbusError } from '@toolbus/spec';
import { runTool } from '../__fixtures__/run-tool.ts';
import { fakeProviders } from './__fixtures__/fake-search-providers.ts';
import { useFakeProvider } from './__fixtures__/use-fake-provider.ts';
import { createWebSearchProvider } from './create-web-search-provider.ts';
import type { WebSearchProviderConfig } from './web-search-provider.ts';
import { createWebSearchTool } from './web-search-tool.ts';

const apiKey = 'brave-key-DO-NOT-LEAK';
const brave = fakeProviders.find((definition) => definition.name === 'brave')!;

describe('web_search: merging queries', () => {
  const suite = useFakeProvider(brave, apiKey);
  const tool = (options: { maxResults?: number } = {}) => suite.tool(options);

  test('one query failing (500 twice) does not fail the others; the model is told which failed', async () => {
    suite.fake.failingQueries.add('broken query');
    const { result, text } = await runTool({
      tool: tool(),
      arguments: { queries: ['good query', 'broken query'] },
    });
    assert.equal(result.outcomes[0]?.status, 'success');
    assert.match(text, /\[1\] good query result 1/);
    assert.match(text, /Note: the query "broken query" failed: Brave failed with HTTP 500 twice/);
    assert.equal(
      suite.fake.queries().filter((query) => query === 'broken query').length,
      2,
      'retried exactly once',
    );
  });

  test('every query failing is an execution error listing each failure', async () => {
    suite.fake.failingQueries.add('down one');
    suite.fake.failingQueries.add('down two');
    const { result, text } = await runTool({
      tool: tool(),
      arguments: { queries: ['down one', 'down two'] },
    });
    assert.equal(result.outcomes[0]?.status, 'execution-error');
    assert.match(text, /failed for every query: "down one": Brave failed with HTTP 500 twice.*"down two"/);
  });

  test('duplicates by normalised URL are dropped (tracking parameters, host case, trailing slash), results capped', async () => {
    suite.fake.hits.set('first', [
      { title: 'Shared page', url: 'https://Docs.Example/guide/?utm_source=brave&b=2&a=1', snippet: 'one' },
      { title: 'Only first', url: 'https://first.example/', snippet: 'two' },
    ]);
    suite.fake.hits.set('second', [
      { title: 'Shared page again', url: 'https://docs.example/guide?a=1&b=2#intro', snippet: 'three' },
      { title: 'Only second', url: 'https://second.example/x', snippet: 'four' },
      { title: 'Second extra', url: 'https://second.example/y', snippet: 'five' },
    ]);
    const { result } = await runTool({
      tool: tool({ maxResults: 3 }),
      arguments: { queries: ['first', 'second'] },
    });
    const rich = result.outcomes[0]?.response.rich;
    assert.ok(rich?.type === 'documents');
    assert.deepEqual(
      rich.documents.map((document) => [document.citationNumber, document.id, document.title]),
      [
        [1, 'web:https://docs.example/guide?a=1&b=2', 'Shared page'],
        [2, 'web:https://first.example/', 'Only first'],
        [3, 'web:https://second.example/x', 'Only second'],
      ],
    );
  });

  test('a page already cited in the turn keeps its number; new pages continue after the highest', async () => {
    const citations = createCitationAllocator({ startAt: 1 });
    citations.assign([
      { id: 'file-a#0', title: 'A', blurb: '', content: '', sourceType: 'file' },
      { id: 'web:https://known.example/page', title: 'Known', blurb: '', content: '', sourceType: 'web' },
    ]);
    suite.fake.hits.set('known', [
      { title: 'New page', url: 'https://new.example/', snippet: 'new' },
      { title: 'Known page', url: 'https://KNOWN.example/page/?fbclid=abc', snippet: 'known' },
    ]);
    const { text } = await runTool({ tool: tool(), arguments: { queries: ['known'] }, citations });
    assert.match(text, /\[3\] New page/);
    assert.match(text, /\[2\] Known page/);
  });

  test('queries are cleaned of control characters; only-empty queries are a call error', async () => {
    const { result } = await runTool({ tool: tool(), arguments: { queries: ['\u0000 \n', '  '] } });
    assert.equal(result.outcomes[0]?.status, 'call-error');
    await runTool({ tool: tool(), arguments: { queries: ['clean\u0007me\tplease'] } });
    assert.ok(suite.fake.queries().includes('clean me please'));
  });
});

describe('web_search: documented endpoints', () => {
  const defaults: Array<{ config: WebSearchProviderConfig; host: string }> = [
    { config: { provider: 'brave', apiKey }, host: 'api.search.brave.com' },
    { config: { provider: 'exa', apiKey }, host: 'api.exa.ai' },
    { config: { provider: 'serper', apiKey }, host: 'google.serper.dev' },
    { config: { provider: 'google', apiKey, searchEngineId: 'cx1' }, host: 'customsearch.googleapis.com' },
    { config: { provider: 'tavily', apiKey }, host: 'api.tavily.com' },
  ];
  for (const { config, host } of defaults) {
    test(`${config.provider} dials https://${host} by default (resolver and socket injected: nothing leaves the machine)`, async () => {
      const dialed: Array<{
        hostname: string;
        port: string | number | undefined;
        protocol: string;
        servername: string | null | undefined;
      }> = [];
      const lookup: NonNullable<GuardedFetchOptions['lookup']> = (hostname, _options, callback) => {
        setImmediate(() =>
          hostname === host
            ? callback(null, [{ address: '93.184.215.14', family: isIP('93.184.215.14') }])
            : callback(
                Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
                [],
              ),
        );
      };
      const connect: NonNullable<GuardedFetchOptions['connect']> = (options, callback) => {
        dialed.push({
          hostname: options.hostname,
          port: options.port,
          protocol: options.protocol,
          servername: options.servername,
        });
        callback(new Error('test socket factory: not dialing'), null);
      };
      const fetch = createGuardedFetch({ lookup, connect });
      try {
        const tool = createWebSearchTool({ provider: createWebSearchProvider(config), fetch });
        const { result, text } = await runTool({ tool, arguments: { queries: ['endpoint check'] } });
        assert.equal(result.outcomes[0]?.status, 'execution-error');
        assert.match(text, /could not be reached/);
        assert.ok(dialed.length >= 1);
        for (const dial of dialed) {
          assert.equal(dial.hostname, '93.184.215.14', 'the checked address is what gets dialed');
          assert.equal(dial.servername, host);
          assert.equal(dial.protocol, 'https:');
          assert.equal(Number(dial.port || 443), 443);
        }
        assert.ok(!text.includes(apiKey));
      } finally {
        await fetch.close();
      }
    });
  }

  test('a missing credential fails closed at configuration, naming the setting only', () => {
    assert.throws(
      () => createWebSearchProvider({ provider: 'google', apiKey: 'k', searchEngineId: '' }),
      (error: unknown) =>
        ToolbusError.isInstance(error) &&
        error.code === 'web_search_not_configured' &&
        /searchEngineId/.test(error.message),
    );
    assert.throws(
      () => createWebSearchProvider({ provider: 'tavily', apiKey: '' }),
      (error: unknown) => ToolbusError.isInstance(error) && error.code === 'web_search_not_configured',
    );
  });
});
