import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.ts';

async function postJson(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** Runs `use` against a server that answers every valid request with "ok", and closes it after. */
async function withOkServer(use: (server: ScriptedModelServer) => Promise<void>): Promise<void> {
  const server = await startScriptedModelServer({
    turns: [{ repeat: true, steps: [{ type: 'text', text: 'ok' }] }],
  });
  try {
    await use(server);
  } finally {
    await server.close();
  }
}

describe('scripted model server: strict history checks', () => {
  it('rejects OpenAI history where a tool call has no result, or a result has no call', () =>
    withOkServer(async (server) => {
      const url = `${server.url}/v1/chat/completions`;
      const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } };
      const missing = await postJson(url, {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'user', content: 'next' },
        ],
      });
      assert.equal(missing.status, 400);
      assert.match(JSON.stringify(missing.json), /did not have response messages: call_1/);
      const orphan = await postJson(url, {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'tool', tool_call_id: 'call_9', content: 'x' },
        ],
      });
      assert.equal(orphan.status, 400);
      assert.match(
        JSON.stringify(orphan.json),
        /must be a response to a preceeding message with 'tool_calls'/,
      );
      const good = await postJson(url, {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
      });
      assert.equal(good.status, 200);
      assert.equal(server.failures.length, 2);
      assert.deepEqual(
        server.requests.map((request) => request.outcome),
        ['rejected', 'rejected', 'completed'],
      );
    }));

  it('rejects Anthropic history with unpaired tool_use/tool_result and empty text blocks', () =>
    withOkServer(async (server) => {
      const url = `${server.url}/v1/messages`;
      const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} };
      const cases: [unknown[], RegExp | undefined][] = [
        [
          [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: [toolUse] },
            { role: 'user', content: 'next' },
          ],
          /without `tool_result` blocks immediately after: toolu_1/,
        ],
        [
          [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'x' }] }],
          /unexpected `tool_use_id`/,
        ],
        [[{ role: 'user', content: [{ type: 'text', text: '' }] }], /text content blocks must be non-empty/],
        [
          [
            { role: 'user', content: 'q' },
            { role: 'assistant', content: [toolUse] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
          ],
          undefined,
        ],
      ];
      for (const [messages, problem] of cases) {
        const answer = await postJson(url, { model: 'm', max_tokens: 100, messages });
        if (problem === undefined) {
          assert.equal(answer.status, 200);
        } else {
          assert.equal(answer.status, 400);
          assert.match(JSON.stringify(answer.json), problem);
          assert.equal((answer.json as { type: string }).type, 'error');
        }
      }
      const noMaxTokens = await postJson(url, { model: 'm', messages: [{ role: 'user', content: 'q' }] });
      assert.equal(noMaxTokens.status, 400);
    }));

  it('rejects a tool name both APIs refuse, in the words of each, and reads a good one', () =>
    withOkServer(async (server) => {
      const messages = [{ role: 'user', content: 'q' }];
      const parameters = { type: 'object', properties: {} };
      const openAiTool = (name: string) => ({ type: 'function', function: { name, parameters } });
      const anthropicTool = (name: string) => ({ name, input_schema: parameters });
      const openAi = (names: string[]) =>
        postJson(`${server.url}/v1/chat/completions`, { model: 'm', messages, tools: names.map(openAiTool) });
      const anthropic = (names: string[]) =>
        postJson(`${server.url}/v1/messages`, {
          model: 'm',
          max_tokens: 100,
          messages,
          tools: names.map(anthropicTool),
        });
      const badOpenAi = await openAi(['get_weather', 'get weather']);
      assert.equal(badOpenAi.status, 400);
      assert.match(JSON.stringify(badOpenAi.json), /Invalid 'tools\[1\]\.function\.name'/);
      const badAnthropic = await anthropic(['get.weather']);
      assert.equal(badAnthropic.status, 400);
      assert.match(JSON.stringify(badAnthropic.json), /tools\.0\.custom\.name: String should match pattern/);
      assert.equal((await openAi(['get_weather'])).status, 200);
      assert.equal((await anthropic(['get_weather'])).status, 200);
      assert.deepEqual(
        server.requests.map((request) => request.toolNames),
        [['get_weather', 'get weather'], ['get.weather'], ['get_weather'], ['get_weather']],
      );
    }));
});

describe('scripted model server: turns', () => {
  it('chooses turns by matchers, runs assertions, and records header names only', async () => {
    const server = await startScriptedModelServer({
      turns: [
        { match: { lastRole: 'tool' }, repeat: true, steps: [{ type: 'text', text: 'after tool' }] },
        {
          match: (request) => request.lastMessage?.text.includes('weather') === true,
          assert: (request) => assert.deepEqual(request.toolNames, ['get_weather']),
          steps: [{ type: 'text', text: 'weather turn' }],
        },
        { steps: [{ type: 'text', text: 'fallback' }] },
      ],
    });
    try {
      const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'secret-value' }).chat('m');
      const generate = async (text: string, tools: boolean) => {
        const result = await openai.doGenerate({
          prompt: [{ role: 'user', content: [{ type: 'text', text }] }],
          ...(tools
            ? {
                tools: [
                  { type: 'function', name: 'get_weather', inputSchema: { type: 'object', properties: {} } },
                ],
              }
            : {}),
        });
        return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      };
      await assert.rejects(generate('the weather?', false), /assertion failed/);
      assert.equal(await generate('hello', false), 'fallback');
      // A chosen turn is used up even when its assertion fails (turns answer once unless `repeat`).
      await assert.rejects(generate('the weather?', true), /no scripted turn matches/);
      const request = server.requests[0];
      assert.ok(request?.headerNames.includes('authorization'));
      assert.ok(!JSON.stringify(server.requests).includes('secret-value'));
      assert.equal(server.failures.length, 2);
    } finally {
      await server.close();
    }
  });

  it('answers non-streaming requests in both formats, tool calls included', async () => {
    const steps = [
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'Calling.' },
      { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' }, chunkSize: 3 },
    ] as const;
    const server = await startScriptedModelServer({ turns: [{ repeat: true, steps }] });
    try {
      const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'q' }] }];
      const tools = [
        { type: 'function' as const, name: 'get_weather', inputSchema: { type: 'object' as const } },
      ];
      for (const model of [
        createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k' }).chat('m'),
        createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'k' }).messages('m'),
      ]) {
        const result = await model.doGenerate({ prompt, tools });
        const text = result.content.find((part) => part.type === 'text');
        const call = result.content.find((part) => part.type === 'tool-call');
        assert.equal(text?.type === 'text' && text.text, 'Calling.');
        assert.ok(call?.type === 'tool-call');
        assert.deepEqual(
          [call.toolCallId, call.toolName, JSON.parse(call.input)],
          ['call_1', 'get_weather', { city: 'Oslo' }],
        );
        assert.equal(result.finishReason.unified, 'tool-calls');
      }
    } finally {
      await server.close();
    }
  });
});
