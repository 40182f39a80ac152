import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { startTestApi, type TestApi } from '../__fixtures__/test-api.ts';
import { lookupThenAnswer, lookupToolFactories, readSse } from '../__fixtures__/test-server.ts';
import { createJsonLogger } from '../server-logger.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let model: ScriptedModelServer;
let api: TestApi;
const logLines: string[] = [];

before(async () => {
  trace.setGlobalTracerProvider(provider);
  model = await startScriptedModelServer({ handler: lookupThenAnswer() });
  api = await startTestApi({
    server: () => ({
      auth: 'api-keys',
      defaultModel: `openai-compatible:${model.url}/v1#scripted`,
      builtInToolFactories: () => lookupToolFactories(),
      logger: createJsonLogger((line) => logLines.push(line)),
    }),
    adminEmail: 'ops@example.com',
  });
});
after(async () => {
  await api?.close();
  await model.close();
  trace.disable();
});

test('a turn is traced as invoke_agent → chat steps and execute_tool, without tool arguments; logs hold no secrets', async () => {
  const headers = { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' };
  const chat = (await (
    await fetch(`${api.http.url}/v1/chats`, { method: 'POST', headers, body: '{}' })
  ).json()) as {
    id: string;
  };
  await readSse(
    await fetch(`${api.http.url}/v1/chats/${chat.id}/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ content: 'my secret question about refunds' }),
    }),
  );
  const spans = await (async () => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const finished = exporter.getFinishedSpans();
      if (finished.some((span) => span.name.startsWith('invoke_agent'))) return finished;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return exporter.getFinishedSpans();
  })();
  const turn = spans.find((span) => span.name === 'invoke_agent default');
  assert.ok(turn, spans.map((span) => span.name).join());
  assert.equal(turn.attributes['gen_ai.operation.name'], 'invoke_agent');
  assert.equal(turn.attributes['gen_ai.conversation.id'], chat.id);
  assert.equal(turn.attributes['toolbus.turn.stop_reason'], 'finished');
  const steps = spans.filter((span) => span.name === 'chat scripted');
  assert.equal(steps.length, 2, 'one span per model step');
  const tools = spans.filter((span) => span.name === 'execute_tool lookup');
  assert.equal(tools.length, 1);
  for (const child of [...steps, ...tools]) {
    assert.equal(child.parentSpanContext?.spanId, turn.spanContext().spanId);
    assert.equal(child.spanContext().traceId, turn.spanContext().traceId);
  }
  assert.equal(steps[0]?.attributes['gen_ai.operation.name'], 'chat');
  assert.deepEqual(steps[0]?.attributes['gen_ai.response.finish_reasons'], ['tool-calls']);
  assert.equal(tools[0]?.attributes['gen_ai.tool.name'], 'lookup');
  assert.equal(tools[0]?.attributes['toolbus.tool.status'], 'success');
  const everything = JSON.stringify(spans.map((span) => span.attributes));
  assert.ok(!everything.includes('secret question'), 'arguments and messages stay out of spans');
  const logs = logLines.join('');
  assert.ok(logLines.some((line) => JSON.parse(line).event === 'turn.end'));
  assert.ok(
    !logs.includes(api.adminKey) && !logs.includes('secret question'),
    'logs hold ids, never keys or content',
  );
});
