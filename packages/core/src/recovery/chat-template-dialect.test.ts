import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ToolDefinition } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { AnswerStreamFilter } from '../streaming/answer-stream-filter.ts';
import { loadRealWorldCorpus } from './__fixtures__/real-world-corpus.ts';
import { dialectFromChatTemplate } from './chat-template-dialect.ts';
import { extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import {
  createTemplateDialectCache,
  readServedChatTemplate,
  recoveryDialectsFor,
} from './served-chat-template.ts';

const templates = new URL('./__fixtures__/chat-templates/', import.meta.url);
const template = (name: string) => readFile(new URL(name, templates), 'utf8');
const corpus = loadRealWorldCorpus();
const corpusCase = (id: string) => corpus.find((entry) => entry.id === id)!;

// Real templates (see __fixtures__/chat-templates/SOURCES.json) and what each says about its family's calls,
// with a real output of that family that the template's dialects alone read.
const families = [
  { file: 'hermes.jinja', first: 'hermes', format: 'json', output: 'ernie45-thinking-close-then-two-calls' },
  {
    file: 'qwen3-coder.jinja',
    first: 'function-tag',
    format: 'xml-parameters',
    output: 'qwen3-coder-missing-opener-glob',
  },
  {
    file: 'glm-4.5.jinja',
    first: 'named-tool-call-tag',
    format: 'key-value-tags',
    output: 'glm4.5-lmstudio-arg-value-json-array',
    reasoning: '<think>',
  },
  {
    file: 'minimax-m2.jinja',
    first: 'xml-invoke',
    format: 'xml-invoke',
    output: 'minimax-m2.1-openrouter-two-bash',
    reasoning: '<think>',
  },
  {
    file: 'lfm2.5.jinja',
    first: 'pythonic',
    format: 'pythonic',
    output: 'lfm2.5-lmstudio-list-directory',
    reasoning: '<think>',
  },
  { file: 'deepseek-v3.1.jinja', first: 'deepseek', format: 'json', reasoning: '<think>' },
  {
    file: 'nemotron-nano-v2.jinja',
    first: 'nemotron',
    format: 'json',
    output: 'nemotron-nano-v2-toolcall-array-after-prose',
    reasoning: '<think>',
  },
  {
    file: 'seed-oss.jinja',
    first: 'function-tag',
    format: 'xml-parameters',
    output: 'seed-oss-zero-budget-thinking-then-call',
    reasoning: '<seed:think>',
  },
] as const;

describe('dialects read from a model family’s own chat template', () => {
  for (const family of families) {
    it(`${family.file}: its call markers, argument format and reasoning markers`, async () => {
      const dialect = dialectFromChatTemplate(await template(family.file));
      assert.ok(dialect, 'recognised');
      assert.equal(dialect.dialects[0], family.first);
      assert.equal(dialect.argumentFormat, family.format);
      if ('reasoning' in family)
        assert.ok(dialect.reasoningMarkers.some((marker) => marker.open === family.reasoning));
      if ('output' in family) {
        const entry = corpusCase(family.output);
        assert.deepEqual(
          extractToolCallsFromText(entry.text, entry.tools, { preferredDialects: dialect.dialects }),
          entry.calls,
        );
      }
    });
  }

  it('DeepSeek V3.1: where the template puts tool results is known', async () => {
    const dialect = dialectFromChatTemplate(await template('deepseek-v3.1.jinja'));
    assert.deepEqual(dialect?.toolResultMarkers, ['<｜tool▁output▁begin｜>']);
  });

  it('a template that writes no call markup recognises nothing (recovery keeps its usual behaviour)', async () => {
    assert.equal(dialectFromChatTemplate(await template('kimi-k2.jinja')), undefined);
    assert.equal(dialectFromChatTemplate(''), undefined);
    assert.deepEqual(recoveryDialectsFor({ modelId: 'some-new-model' }), {
      dialects: undefined,
      parsers: undefined,
    });
  });

  it('a family known only from its template: its markers are read and hidden from the first character', async () => {
    // Hermes's template with its call tags renamed, as a family no dialect knows would write it.
    const renamed = (await template('hermes.jinja')).replaceAll('tool_call>', 'acme_call>');
    const dialect = dialectFromChatTemplate(renamed);
    assert.ok(dialect);
    assert.deepEqual(dialect.callMarkers, ['<acme_call>']);
    assert.equal(dialect.argumentFormat, 'json');
    const { dialects, parsers } = recoveryDialectsFor({ modelId: 'acme-7b', template: dialect });
    assert.ok(dialects && parsers);
    // The same list for every request to the model: recovery caches its tables per parser list.
    assert.equal(recoveryDialectsFor({ modelId: 'acme-7b', template: dialect }).parsers, parsers);
    const tools: ToolDefinition[] = [
      {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ];
    const text =
      'Checking.\n<acme_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</acme_call>';
    assert.deepEqual(extractToolCallsFromText(text, tools, { parsers, preferredDialects: dialects }), [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
    ]);
    for (const size of [1, 7, 64]) {
      const filter = new AnswerStreamFilter({ tools, parsers, preferredDialects: dialects });
      let shown = '';
      for (let at = 0; at < text.length; at += size) {
        shown += filter.process(text.slice(at, at + size));
        assert.doesNotMatch(shown, /<ac|acme/, `chunks of ${size}: never on screen`);
      }
      shown += filter.flush();
      assert.equal(shown.trim(), 'Checking.', `chunks of ${size}`);
    }
  });

  it('the template’s dialects come first, then the model profile’s', async () => {
    const dialect = dialectFromChatTemplate(await template('qwen3-coder.jinja'));
    const resolved = recoveryDialectsFor({
      modelId: 'qwen2.5:7b',
      ...omitUndefined({ template: dialect }),
    });
    assert.deepEqual(resolved.dialects?.slice(0, 3), ['function-tag', 'hermes', 'qwen-tools']);
    assert.equal(resolved.parsers, undefined, 'known markers need no parser of their own');
  });
});

describe('chat templates read from serving stacks (loopback servers speaking their documented formats)', () => {
  let server: Server;
  let baseUrl = '';
  const requests: string[] = [];
  let ollamaTemplate = '';
  let llamaTemplate = '';

  before(async () => {
    ollamaTemplate = await template('qwen3-coder.jinja');
    llamaTemplate = await template('glm-4.5.jinja');
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        requests.push(`${request.method} ${request.url} ${body}`);
        response.setHeader('content-type', 'application/json');
        if (request.method === 'POST' && request.url === '/api/show') {
          const { model } = JSON.parse(body) as { model: string };
          if (model !== 'qwen3-coder:30b') {
            response.statusCode = 404;
            response.end(JSON.stringify({ error: `model '${model}' not found` }));
            return;
          }
          response.end(
            JSON.stringify({
              modelfile: '# Modelfile',
              template: ollamaTemplate,
              details: { family: 'qwen3moe' },
              capabilities: ['completion', 'tools'],
            }),
          );
        } else if (request.method === 'GET' && request.url === '/props') {
          response.end(JSON.stringify({ chat_template: llamaTemplate, total_slots: 1 }));
        } else {
          response.statusCode = 404;
          response.end('{}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('Ollama /api/show: the template and the tools capability; without a fetch, no request', async () => {
    assert.equal(
      await readServedChatTemplate({ kind: 'ollama', baseUrl, model: 'qwen3-coder:30b' }),
      undefined,
    );
    const served = await readServedChatTemplate(
      { kind: 'ollama', baseUrl, model: 'qwen3-coder:30b' },
      { fetch },
    );
    assert.equal(served?.template, ollamaTemplate);
    assert.equal(served?.supportsTools, true);
    assert.ok(requests.some((line) => line.startsWith('POST /api/show {"model":"qwen3-coder:30b"}')));
    assert.equal(
      await readServedChatTemplate({ kind: 'ollama', baseUrl, model: 'missing' }, { fetch }),
      undefined,
    );
  });

  it('llama.cpp /props: chat_template, read once per model by the cache', async () => {
    const cache = createTemplateDialectCache();
    const load = () => readServedChatTemplate({ kind: 'llama.cpp', baseUrl }, { fetch });
    const before = requests.length;
    const [first, second] = await Promise.all([
      cache.dialectFor(`llama.cpp:${baseUrl}`, load),
      cache.dialectFor(`llama.cpp:${baseUrl}`, load),
    ]);
    assert.equal(first, second);
    assert.equal(first?.dialects[0], 'named-tool-call-tag');
    assert.equal(requests.length - before, 1, 'one request for both');
    await cache.dialectFor(`llama.cpp:${baseUrl}`, load);
    assert.equal(requests.length - before, 1, 'cached');
  });

  it('a tokenizer_config.json or chat_template.jinja by path or URL', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'toolbus-template-'));
    try {
      const config = join(directory, 'tokenizer_config.json');
      await writeFile(
        config,
        JSON.stringify({
          chat_template: [
            { name: 'default', template: '{{ messages }}' },
            { name: 'tool_use', template: llamaTemplate },
          ],
        }),
      );
      const fromConfig = await readServedChatTemplate({ kind: 'file', path: config });
      assert.equal(fromConfig?.template, llamaTemplate, 'the tool_use template');
      const jinja = join(directory, 'chat_template.jinja');
      await writeFile(jinja, ollamaTemplate);
      assert.equal((await readServedChatTemplate({ kind: 'file', path: jinja }))?.template, ollamaTemplate);
      assert.equal(
        (await readServedChatTemplate({ kind: 'file', url: `${baseUrl}/props` }, { fetch }))?.template,
        llamaTemplate,
        'a JSON document with chat_template, by URL',
      );
      assert.equal(
        await readServedChatTemplate({ kind: 'file', url: `${baseUrl}/none` }, { fetch }),
        undefined,
      );
      assert.equal(
        await readServedChatTemplate({ kind: 'file', path: join(directory, 'missing') }),
        undefined,
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
