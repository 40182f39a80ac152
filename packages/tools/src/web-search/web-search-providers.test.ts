import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runTool } from '../__fixtures__/run-tool.ts';
import { fakeProviders } from './__fixtures__/fake-search-providers.ts';
import { useFakeProvider } from './__fixtures__/use-fake-provider.ts';

const apiKey = 'sk-live-TOPSECRET-4f9c2a';

for (const definition of fakeProviders) {
  describe(`web_search with ${definition.displayName} against a loopback fake of its API`, () => {
    const suite = useFakeProvider(definition, apiKey);
    const tool = () => suite.tool();

    test('sends the documented request and maps the documented answer, interleaving two queries', async () => {
      suite.fake.mode = 'success';
      const before = suite.fake.received.length;
      const { result, packets, text } = await runTool({
        tool: tool(),
        arguments: { queries: ['alpha topic', 'beta topic'] },
        startCitationNumber: 4,
      });
      assert.equal(result.outcomes[0]?.status, 'success', text);
      const requests = suite.fake.received.slice(before);
      assert.equal(requests.length, 2);
      assert.deepEqual(suite.fake.queries().slice(before).sort(), ['alpha topic', 'beta topic']);
      for (const request of requests)
        assert.equal(Object.hasOwn(definition.readQuery(request, apiKey), 'query'), true);
      // Round-robin: alpha 1, beta 1, alpha 2, ...
      assert.match(text, /\[4\] alpha topic result 1\nURL: https:\/\/alpha-topic\.example\/page-1/);
      assert.match(text, /\[5\] beta topic result 1/);
      assert.match(text, /\[6\] alpha topic result 2/);
      assert.match(text, /About alpha topic, excerpt 1\./);
      assert.doesNotMatch(text, /<strong>/);
      const documents = packets.find((packet) => packet.obj.type === 'search-documents');
      assert.ok(documents?.obj.type === 'search-documents');
      assert.equal(documents.obj.documents[0]?.id, 'web:https://alpha-topic.example/page-1');
      assert.equal(documents.obj.documents.length, 6);
      const queries = packets.find((packet) => packet.obj.type === 'search-queries');
      assert.deepEqual(queries?.obj.type === 'search-queries' && queries.obj.queries, [
        'alpha topic',
        'beta topic',
      ]);
      const everything = JSON.stringify({ text, rich: result.outcomes[0]?.response.rich, packets });
      assert.ok(
        !everything.includes(apiKey),
        'the API key never reaches the model, the rich object or the UI',
      );
    });

    test('an empty answer tells the model to rephrase', async () => {
      suite.fake.mode = 'empty';
      const { result, text } = await runTool({ tool: tool(), arguments: { queries: ['nothing here'] } });
      assert.equal(result.outcomes[0]?.status, 'success');
      assert.match(text, /No web results for "nothing here"\. Try rephrasing/);
      assert.deepEqual(result.outcomes[0]?.response.rich, { type: 'documents', documents: [] });
    });

    test('a refused key is a configuration error naming the provider, never the key', async () => {
      suite.fake.mode = 'unauthorized';
      const { result, text } = await runTool({
        tool: tool(),
        arguments: { queries: ['refused one', 'refused two'] },
      });
      assert.equal(result.outcomes[0]?.status, 'execution-error');
      assert.match(text, new RegExp(definition.displayName));
      assert.match(text, /HTTP 40[13]/);
      assert.match(text, /not configured correctly/);
      const rich = result.outcomes[0]?.response.rich;
      assert.equal(rich?.type === 'failure' && rich.code, 'web_search_unauthorized');
      assert.ok(!JSON.stringify({ text, rich }).includes(apiKey));
    });

    test('a 429 becomes a rate-limit message with Retry-After the model can act on', async () => {
      suite.fake.mode = 'rate-limited';
      const before = suite.fake.received.length;
      const { result, text } = await runTool({ tool: tool(), arguments: { queries: ['limited'] } });
      assert.equal(result.outcomes[0]?.status, 'execution-error');
      assert.match(
        text,
        /rate-limited the search \(HTTP 429, retry after 7 s\)\. Try fewer queries, or search again later/,
      );
      assert.equal(suite.fake.received.length - before, 1, 'a rate limit is not retried at once');
      const rich = result.outcomes[0]?.response.rich;
      assert.equal(rich?.type === 'failure' && rich.code, 'web_search_rate_limited');
    });

    test('a 500 is retried once, and the retry succeeds', async () => {
      suite.fake.mode = 'flaky';
      const before = suite.fake.received.length;
      const { result, text } = await runTool({ tool: tool(), arguments: { queries: ['flaky query'] } });
      assert.equal(result.outcomes[0]?.status, 'success', text);
      assert.equal(suite.fake.received.length - before, 2);
      assert.match(text, /flaky query result 1/);
    });
  });
}
