import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  chunkText,
  type ScriptedModelServer,
  startScriptedModelServer,
  textSteps,
} from '@toolbus/core/testing';
import OpenAI from 'openai';
import { startCannedUpstream } from './__fixtures__/canned-upstream.ts';
import { readChatStream } from './__fixtures__/read-chat-stream.ts';
import { weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// gpt-oss behind a server that decodes with `skip_special_tokens` (vLLM, SGLang and TGI have shipped it so): each
// Harmony message loses its `<|start|>assistant<|channel|>NAME<|message|>` header and `<|end|>` (the format as
// github.com/openai/harmony documents it), so the channel's name is glued to the text. The official `openai` client, unchanged, gets the
// call in tool_calls, the analysis in reasoning_content and only a preamble or the final answer in content,
// streaming and not.

const call = 'commentary to=functions.get_weather json{"city":"Oslo"}';
const cases: readonly {
  name: string;
  model: string;
  text: string;
  content: string;
  reasoning: string;
  calls: number;
}[] = [
  // The call header alone is specific enough for any model: a model no profile names.
  { name: 'bare-call', model: 'my-local-model', text: call, content: '', reasoning: '', calls: 1 },
  {
    name: 'constrain-kept',
    model: 'my-local-model',
    text: 'commentary to=functions.get_weather <|constrain|>json{"city":"Oslo"}',
    content: '',
    reasoning: '',
    calls: 1,
  },
  {
    name: 'analysis-call',
    model: 'openai/gpt-oss-20b',
    text: `analysisThe user wants the weather. Call get_weather.assistant${call}`,
    content: '',
    reasoning: 'The user wants the weather. Call get_weather.',
    calls: 1,
  },
  {
    name: 'preamble-call',
    model: 'gpt-oss:20b',
    text: `analysisCheck first.assistantcommentaryLooking it up.assistant${call}`,
    content: 'Looking it up.',
    reasoning: 'Check first.',
    calls: 1,
  },
  {
    name: 'opening-preamble-call',
    model: 'gpt-oss:20b',
    text: `commentaryLooking it up.assistant${call}`,
    content: 'Looking it up.',
    reasoning: '',
    calls: 1,
  },
  {
    name: 'analysis-final',
    model: 'openai/gpt-oss-120b',
    text: 'analysisThe tool said 12.assistantfinalIt is 12 °C in Oslo.',
    content: 'It is 12 °C in Oslo.',
    reasoning: 'The tool said 12.',
    calls: 0,
  },
  // llama-server strips `<|end|>` and `<|return|>` alone: the next message's header ends the analysis.
  {
    name: 'end-stripped',
    model: 'my-local-model',
    text: '<|channel|>analysis<|message|>Just a test.<|start|>assistant<|channel|>final<|message|>Hello!',
    content: 'Hello!',
    reasoning: 'Just a test.',
    calls: 0,
  },
  // Negatives: prose for any other model, and a mention of the header, stream unchanged.
  {
    name: 'other-model-analysis',
    model: 'qwen2.5-7b-instruct',
    text: 'analysis of the data shows growth in Oslo.',
    content: 'analysis of the data shows growth in Oslo.',
    reasoning: '',
    calls: 0,
  },
  {
    name: 'mention',
    model: 'my-local-model',
    text: 'gpt-oss calls with commentary to=functions.get_weather json{"city":"Oslo"} in its header.',
    content: 'gpt-oss calls with commentary to=functions.get_weather json{"city":"Oslo"} in its header.',
    reasoning: '',
    calls: 0,
  },
];

describe('gateway with gpt-oss whose special tokens the server stripped', () => {
  let upstream: ScriptedModelServer;
  let gateway: RunningGateway;
  let client: OpenAI;

  before(async () => {
    upstream = await startScriptedModelServer({
      handler(request) {
        const last = request.lastMessage?.text ?? '';
        const entry = cases.find((candidate) => last.includes(`[${candidate.name}]`));
        const size = Number(/\{(\d+)\}/.exec(last)?.[1] ?? 3);
        return textSteps(chunkText(entry?.text ?? 'Plain answer.', size));
      },
    });
    gateway = await startGateway({ upstreams: [{ name: 'local', baseUrl: `${upstream.url}/v1` }] });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  for (const entry of cases) {
    it(`${entry.name}: the content, reasoning and calls a working parser returns, streaming and not`, async () => {
      for (const size of [1, 7, 64]) {
        const content = `weather in Oslo [${entry.name}] {${size}}`;
        const stream = await client.chat.completions.create({
          model: entry.model,
          stream: true,
          messages: [{ role: 'user', content }],
          tools: [weatherTool],
        });
        const streamed = await readChatStream(stream);
        const label = `${entry.name} in chunks of ${size}`;
        assert.equal(streamed.content, entry.content, label);
        assert.equal(streamed.reasoning, entry.reasoning, label);
        assert.equal(streamed.calls.length, entry.calls, label);
        assert.equal(streamed.finish, entry.calls > 0 ? 'tool_calls' : 'stop', label);
        for (const made of streamed.calls) {
          assert.equal(made.name, 'get_weather');
          assert.deepEqual(JSON.parse(made.arguments), { city: 'Oslo' });
        }

        const whole = await client.chat.completions.create({
          model: entry.model,
          messages: [{ role: 'user', content }],
          tools: [weatherTool],
        });
        const choice = whole.choices[0];
        const message = choice?.message as
          | (OpenAI.ChatCompletionMessage & { reasoning_content?: string })
          | undefined;
        assert.equal(message?.content ?? '', entry.content, label);
        assert.equal(message?.reasoning_content ?? '', entry.reasoning, label);
        const calls = message?.tool_calls ?? [];
        assert.equal(calls.length, entry.calls, label);
        for (const made of calls) {
          assert.ok(made.type === 'function');
          assert.equal(made.function.name, 'get_weather');
          assert.deepEqual(JSON.parse(made.function.arguments), { city: 'Oslo' });
        }
        assert.equal(choice?.finish_reason, entry.calls > 0 ? 'tool_calls' : 'stop', label);
      }
    });
  }
});

// A model whose name no profile knows is a Harmony model when its served chat template writes Harmony's call header
// (this fragment follows the one gpt-oss's chat template writes an assistant's call with): the gateway reads the
// template from an Ollama-shaped upstream (`POST /api/show`) and splits the stripped analysis off.
const harmonyTemplate =
  '{%- for tool_call in message.tool_calls %}{{- "<|start|>assistant to=functions." + tool_call.function.name + "<|channel|>commentary json<|message|>" + tool_call.function.arguments|tojson + "<|call|>" }}{%- endfor %}';

describe('gateway with a model its served template shows to be a Harmony model', () => {
  const answer = `analysisThe user wants the weather.assistant${call}`;

  for (const [setting, reasoning, content] of [
    ['auto', 'The user wants the weather.', ''],
    // Without the template nothing says the model writes Harmony: its text starting with "analysis" is left alone.
    ['none', '', answer],
  ] as const) {
    it(`chat template ${setting}: reasoning ${JSON.stringify(reasoning)}, content ${JSON.stringify(content).slice(0, 20)}`, async () => {
      const upstream = await startCannedUpstream((path, body) => {
        if (path === '/api/show') return { status: 200, json: { template: harmonyTemplate } };
        if (path !== '/v1/chat/completions') return { status: 404, json: {} };
        const delta = (text: string) => ({
          id: 'c',
          object: 'chat.completion.chunk',
          created: 0,
          model: 'acme-20b',
          choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
        });
        if (body.stream !== true) throw new Error('streamed only');
        return {
          events: [
            ...chunkText(answer, 5).map(delta),
            {
              id: 'c',
              object: 'chat.completion.chunk',
              created: 0,
              model: 'acme-20b',
              choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
            },
          ],
        };
      });
      const gateway = await startGateway({
        upstreams: [{ name: 'ollama', baseUrl: upstream.baseUrl, chatTemplate: setting }],
        fetch,
      });
      try {
        const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
        const streamed = await readChatStream(
          await client.chat.completions.create({
            model: 'acme-20b',
            stream: true,
            messages: [{ role: 'user', content: 'weather in Oslo' }],
            tools: [weatherTool],
          }),
        );
        assert.equal(streamed.reasoning, reasoning);
        assert.equal(streamed.content, content);
        assert.deepEqual(
          streamed.calls.map((made) => [made.name, JSON.parse(made.arguments)]),
          [['get_weather', { city: 'Oslo' }]],
        );
      } finally {
        await gateway.close();
        await upstream.close();
      }
    });
  }
});
