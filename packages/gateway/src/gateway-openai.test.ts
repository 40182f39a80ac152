import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  chunkText,
  type ScriptedModelServer,
  startScriptedModelServer,
  textSteps,
} from '@toolbus/core/testing';
import OpenAI from 'openai';
import { readChatStream } from './__fixtures__/read-chat-stream.ts';
import { markupPattern, textCallDialects, weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// Over a kilobyte of prose before a call: the call's text arrives long after the answer started streaming.
// A call of a tool the request did not declare, then prose.
const undeclaredThenText =
  '<tool_call>\n{"name": "send_email", "arguments": {"to": "a@b"}}\n</tool_call>\nI will wait for the answer.';
const lateProse = `${'The forecast service answers for one city at a time, so I will ask it for the city you named and then tell you what the sky will do there tomorrow. '.repeat(8)}\n`;

// JSON calls written within a line of prose, in the shapes recovery reads there (issue 37): the prose around
// them streams, the call's text never does.
const callsWithinLines = [
  {
    tag: '[inline-json]',
    model: 'any',
    text: 'Let me check. {"name": "get_weather", "arguments": {"city": "Paris"}}\nOne moment.',
    content: 'Let me check. \nOne moment.',
  },
  {
    tag: '[inline-parameters]',
    model: 'llama3.1:8b',
    text: 'Sure: {"name": "get_weather", "parameters": {"city": "Paris"}} and done.',
    content: 'Sure: and done.',
  },
  {
    tag: '[inline-function]',
    model: 'any',
    text: 'Ok. {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}',
    content: 'Ok. ',
  },
  {
    tag: '[inline-pretty]',
    model: 'any',
    text: 'Let me check: {\n  "name": "get_weather",\n  "arguments": {\n    "city": "Paris"\n  }\n}\nOne moment.',
    content: 'Let me check: \nOne moment.',
  },
  {
    tag: '[inline-blank]',
    model: 'any',
    text: 'Sure: { "name": "get_weather", "arguments": { "city": "Paris" } } and done.',
    content: 'Sure: and done.',
  },
  {
    tag: '[inline-arguments-first]',
    model: 'any',
    text: 'Ok. {"arguments": {"city": "Paris"}, "name": "get_weather"}',
    content: 'Ok. ',
  },
  {
    tag: '[inline-namespaced]',
    model: 'any',
    text: 'Let me check. functions.get_weather(city="Paris")\nOne moment.',
    content: 'Let me check. \nOne moment.',
  },
  {
    tag: '[inline-python-dict]',
    model: 'any',
    text: "Let me call it: {'name': 'get_weather', 'arguments': {'city': 'Paris'}}",
    content: 'Let me call it: ',
  },
  {
    tag: '[inline-list]',
    model: 'any',
    text: 'Ok. [{"name": "get_weather", "arguments": {"city": "Paris"}}] then I answer.',
    content: 'Ok. then I answer.',
  },
] as const;

// The official `openai` package, unchanged, against the gateway in front of a model server that writes its calls
// as text: every dialect comes back as native tool_calls, streaming and not, with no markup in the content.
describe('gateway with the openai client', () => {
  let upstream: ScriptedModelServer;
  let gateway: RunningGateway;
  let client: OpenAI;

  before(async () => {
    upstream = await startScriptedModelServer({
      handler(request) {
        const last = request.lastMessage?.text ?? '';
        if (request.lastMessage?.role === 'tool') return textSteps(['It is ', '12 °C in Oslo.']);
        const dialect = textCallDialects.find((entry) => last.includes(`[${entry.dialect}]`));
        if (dialect) return textSteps(chunkText(dialect.text, 3));
        const inline = callsWithinLines.find((entry) => last.includes(entry.tag));
        if (inline) return textSteps(chunkText(inline.text, 3));
        if (last.includes('[mention]'))
          return textSteps(
            chunkText('Models such as Qwen write `<tool_call>` tags; I will just answer: sunny.', 5),
          );
        // A call written only at the very end of a long answer, its name cut between the last two chunks.
        if (last.includes('[late]')) return textSteps([`${lateProse}[get_wea`, "ther(city='Oslo')]"]);
        // Calls on lines after prose as Markdown writes them: indented, in a list item; an indented code example.
        if (last.includes('[lines]'))
          return textSteps(
            chunkText(
              "I'll check both.\n  [get_weather(city='Oslo')]\n- [get_weather(city='Bergen')]\nOne moment.",
              3,
            ),
          );
        // A JSON call on its own line after prose, then the same call fenced (Llama 3's `parameters`).
        if (last.includes('[json-lines]'))
          return textSteps(
            chunkText(
              'Let me look that up.\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\nAnd Bergen:\n```json\n{"name": "get_weather", "parameters": {"city": "Bergen"}}\n```',
              4,
            ),
          );
        // A bracketed call within a line of prose, a link and a citation after it on the same line.
        if (last.includes('[midline]'))
          return textSteps(
            chunkText(
              "I'll check. [get_weather(city='Oslo')] See [the docs](https://example.org) [1].\nOne moment.",
              3,
            ),
          );
        if (last.includes('[example]'))
          return textSteps(chunkText("A call looks like this:\n\n    get_weather(city='Oslo')\n", 3));
        if (last.includes('[unreadable]'))
          return textSteps(['<tool_call>\n{"name": "get_weather", "arguments": {"town": 5}}\n</tool_call>']);
        if (last.includes('[undeclared-then-text]')) return textSteps(chunkText(undeclaredThenText, 4));
        if (last.includes('[native]'))
          return [
            {
              type: 'tool-call',
              id: 'call_native1',
              name: 'get_weather',
              arguments: { city: 'Bergen' },
              chunkSize: 4,
            },
          ];
        // Granite 3.3's answer in its `<response>` wrapper after thinking; llama.cpp's Hermes call wrapped in it.
        if (last.includes('[granite-response]'))
          return textSteps(
            chunkText("<think>I'm\nthinking</think><response>Hello, world!\nWhat's up?</response>", 5),
          );
        if (last.includes('[hermes-response]'))
          return textSteps(
            chunkText('<response>\n  {"name": "get_weather", "arguments": {"city": "Oslo"}}\n</response>', 4),
          );
        if (last.includes('[think]'))
          return textSteps(['<think>\nThe user ', 'says hi.\n</think>\n\nHello!']);
        return textSteps(['Plain ', 'answer.']);
      },
    });
    gateway = await startGateway({ upstreams: [{ name: 'local', baseUrl: `${upstream.url}/v1` }] });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  for (const { dialect, model } of textCallDialects) {
    it(`streams a ${dialect} call written as text as native tool_calls`, async () => {
      const stream = await client.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: `weather in Oslo [${dialect}]` }],
        tools: [weatherTool],
      });
      const { content, calls, finish } = await readChatStream(stream);
      assert.equal(finish, 'tool_calls');
      assert.equal(calls.length, 1);
      const call = calls[0];
      assert.equal(call?.name, 'get_weather');
      assert.match(call?.id ?? '', /^call_/);
      assert.deepEqual(JSON.parse(call?.arguments ?? ''), { city: 'Oslo' });
      assert.doesNotMatch(content, markupPattern);
    });
  }

  it('answers a non-streaming request with the recovered call in message.tool_calls', async () => {
    const { data: completion, response } = await client.chat.completions
      .create({
        model: 'qwen2.5-7b-instruct',
        messages: [{ role: 'user', content: 'weather [hermes]' }],
        tools: [weatherTool],
      })
      .withResponse();
    const choice = completion.choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    const call = choice?.message.tool_calls?.[0];
    assert.equal(call?.type === 'function' ? call.function.name : undefined, 'get_weather');
    assert.equal(choice?.message.content, 'Let me check.\n');
    assert.equal(response.headers.get('x-toolbus-recovery'), 'recovered; calls=1');
  });

  it('runs a two-turn agent loop: call, tool result, answer', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'weather in Oslo [pythonic]' },
    ];
    const first = await client.chat.completions.create({
      model: 'llama-3.2-3b',
      messages,
      tools: [weatherTool],
    });
    const message = first.choices[0]?.message;
    assert.ok(message?.tool_calls?.length);
    messages.push(message);
    for (const call of message.tool_calls ?? [])
      messages.push({ role: 'tool', tool_call_id: call.id, content: '12 °C' });
    const second = await client.chat.completions.create({
      model: 'llama-3.2-3b',
      messages,
      tools: [weatherTool],
    });
    assert.equal(second.choices[0]?.message.content, 'It is 12 °C in Oslo.');
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    // The upstream got the recovered call back as a structured call, paired with its result.
    const sent = upstream.requests.at(-1);
    assert.equal(sent?.messages.at(-2)?.toolCalls[0]?.name, 'get_weather');
  });

  it('leaves prose that only mentions call markup as it was written', async () => {
    const stream = await client.chat.completions.create({
      model: 'qwen2.5-7b-instruct',
      stream: true,
      messages: [{ role: 'user', content: 'tell me [mention]' }],
      tools: [weatherTool],
    });
    const { content, toolCallChunks, finish } = await readChatStream(stream);
    assert.equal(toolCallChunks, 0, 'no chunk carried tool_calls');
    assert.equal(content, 'Models such as Qwen write `<tool_call>` tags; I will just answer: sunny.');
    assert.equal(finish, 'stop');
  });

  it('invents no call from arguments that do not fit the schema, and says so in a header', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'qwen2.5-7b-instruct',
        messages: [{ role: 'user', content: 'x [unreadable]' }],
        tools: [weatherTool],
      })
      .withResponse();
    assert.equal(data.choices[0]?.message.tool_calls, undefined);
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.match(data.choices[0]?.message.content ?? '', /"town": 5/);
    assert.equal(response.headers.get('x-toolbus-recovery'), 'failed');
    assert.match(response.headers.get('x-toolbus-recovery-reason') ?? '', /get_weather|schema|markup/);
  });

  it('gives a whole answer whose markup made no call back as the model wrote it, in its order', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'qwen2.5-7b-instruct',
        messages: [{ role: 'user', content: 'x [undeclared-then-text]' }],
        tools: [weatherTool],
      })
      .withResponse();
    assert.equal(data.choices[0]?.message.tool_calls, undefined);
    assert.equal(data.choices[0]?.message.content, undeclaredThenText);
    assert.equal(response.headers.get('x-toolbus-recovery'), 'failed');
    // A stream showed the text after the markup as it came, so the held markup can only follow it: every
    // character still arrives.
    const stream = await client.chat.completions.create({
      model: 'qwen2.5-7b-instruct',
      stream: true,
      messages: [{ role: 'user', content: 'x [undeclared-then-text]' }],
      tools: [weatherTool],
    });
    const { content, toolCallChunks } = await readChatStream(stream);
    assert.equal(toolCallChunks, 0);
    assert.deepEqual([...content].sort(), [...undeclaredThenText].sort());
  });

  // Calls written after prose (or in llama.cpp's `<response>` wrapper), each answer's text in the scripted
  // upstream's dialects: every call arrives in tool_calls and the content is the prose exactly, no call text.
  const callsAfterProse = [
    {
      name: 'a call written only at the end of a long answer, its name cut between two chunks',
      model: 'any',
      ask: 'weather in Oslo [late]',
      cities: ['Oslo'],
      content: lateProse,
    },
    {
      // The indent and the list marker before each call show; the calls' text never does.
      name: 'calls on indented and list-item lines',
      model: 'any',
      ask: 'weather in Oslo and Bergen [lines]',
      cities: ['Oslo', 'Bergen'],
      content: "I'll check both.\n  \n- \nOne moment.",
    },
    {
      name: 'a JSON call on its own line and a fenced one',
      model: 'llama3.1:8b',
      ask: 'weather in Oslo and Bergen [json-lines]',
      cities: ['Oslo', 'Bergen'],
      content: 'Let me look that up.\nAnd Bergen:\n',
    },
    {
      // llama.cpp's Hermes 2 Pro test: the call's JSON in a `<response>` wrapper, no tag left in the content.
      name: 'a Hermes call wrapped in <response>',
      model: 'hermes-2-pro-llama-3-8b',
      ask: 'weather in Oslo [hermes-response]',
      cities: ['Oslo'],
      content: '',
    },
  ];
  for (const { name, model, ask, cities, content: prose } of callsAfterProse) {
    it(`streams ${name} as tool_calls, no call text in content`, async () => {
      const stream = await client.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: ask }],
        tools: [weatherTool],
      });
      const { content, calls, finish } = await readChatStream(stream);
      assert.equal(finish, 'tool_calls');
      assert.deepEqual(
        calls.map((call) => [call.name, JSON.parse(call.arguments)]),
        cities.map((city) => ['get_weather', { city }]),
      );
      assert.equal(content, prose);
    });
  }

  it('streams a bracketed call within a line of prose as tool_calls, no call text in content', async () => {
    const stream = await client.chat.completions.create({
      model: 'any',
      stream: true,
      messages: [{ role: 'user', content: 'weather in Oslo [midline]' }],
      tools: [weatherTool],
    });
    const { content, calls, finish } = await readChatStream(stream);
    assert.equal(finish, 'tool_calls');
    assert.deepEqual(
      calls.map((call) => [call.name, JSON.parse(call.arguments)]),
      [['get_weather', { city: 'Oslo' }]],
    );
    // The prose around the call, the link and the citation show as written; the call's text never does.
    assert.equal(content, "I'll check. See [the docs](https://example.org) [1].\nOne moment.");
  });

  for (const { tag, model, text, content: prose } of callsWithinLines) {
    it(`streams a call within a line of prose as tool_calls, no call text in content: ${text}`, async () => {
      const stream = await client.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: `weather in Paris ${tag}` }],
        tools: [weatherTool],
      });
      const { content, calls, finish } = await readChatStream(stream);
      assert.equal(finish, 'tool_calls');
      assert.deepEqual(
        calls.map((call) => [call.name, JSON.parse(call.arguments)]),
        [['get_weather', { city: 'Paris' }]],
      );
      assert.equal(content, prose);
    });
  }

  it('shows a call in an indented code example as written, and makes no call of it', async () => {
    const stream = await client.chat.completions.create({
      model: 'any',
      stream: true,
      messages: [{ role: 'user', content: 'how is a call written? [example]' }],
      tools: [weatherTool],
    });
    const { content, toolCallChunks, finish } = await readChatStream(stream);
    assert.equal(toolCallChunks, 0);
    assert.equal(finish, 'stop');
    assert.equal(content, "A call looks like this:\n\n    get_weather(city='Oslo')\n");
  });

  it('passes native tool_calls through untouched', async () => {
    const completion = await client.chat.completions.create({
      model: 'any',
      messages: [{ role: 'user', content: 'x [native]' }],
      tools: [weatherTool],
    });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    assert.equal(call?.id, 'call_native1');
    assert.deepEqual(JSON.parse(call?.type === 'function' ? call.function.arguments : ''), {
      city: 'Bergen',
    });
  });

  it('moves <think> reasoning into reasoning_content, also without tools', async () => {
    const stream = await client.chat.completions.create({
      model: 'deepseek-r1-distill',
      stream: true,
      messages: [{ role: 'user', content: 'hi [think]' }],
    });
    const { content, reasoning } = await readChatStream(stream);
    assert.equal(content, 'Hello!');
    assert.match(reasoning, /The user says hi\./);
  });

  it("shows Granite 3.3's <response> answer without its tags, streamed and not", async () => {
    const stream = await client.chat.completions.create({
      model: 'granite-3.3-8b-instruct',
      stream: true,
      messages: [{ role: 'user', content: 'hi [granite-response]' }],
      tools: [weatherTool],
    });
    const { content, reasoning, toolCallChunks, finish } = await readChatStream(stream);
    assert.equal(content, "Hello, world!\nWhat's up?");
    assert.equal(reasoning, "I'm\nthinking");
    assert.equal(toolCallChunks, 0);
    assert.equal(finish, 'stop');
    const completion = await client.chat.completions.create({
      model: 'granite-3.3-8b-instruct',
      messages: [{ role: 'user', content: 'hi [granite-response]' }],
      tools: [weatherTool],
    });
    assert.equal(completion.choices[0]?.message.content, "Hello, world!\nWhat's up?");
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
  });

  it('lists the upstream models', async () => {
    const models = await client.models.list();
    assert.ok(models.data.length > 0);
    assert.equal(typeof models.data[0]?.id, 'string');
  });
});
