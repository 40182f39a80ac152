import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  chunkText,
  type ScriptedModelServer,
  startScriptedModelServer,
  textSteps,
} from '@toolbus/core/testing';
import { markupPattern, textCallDialects, weatherTool } from './__fixtures__/text-call-dialects.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// An HTTP/1.0 client (a plain script, an old proxy in between) reads a streamed answer until the connection
// closes: no chunked body, so no trailers. The gateway used to declare its recovery trailer anyway, and `node:http`
// refused it, so such a client got a 502 instead of its answer.
describe('the gateway with an HTTP/1.0 client', () => {
  let upstream: ScriptedModelServer;
  let gateway: RunningGateway;
  const hermes = textCallDialects.find((entry) => entry.dialect === 'hermes') ?? textCallDialects[0];

  before(async () => {
    upstream = await startScriptedModelServer({
      handler: () => textSteps(chunkText(hermes?.text ?? '', 4)),
    });
    gateway = await startGateway({ upstreams: [{ name: 'local', baseUrl: `${upstream.url}/v1` }] });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  /** Sends one HTTP/1.0 POST over a raw connection and reads the answer until the gateway closes it. */
  async function postHttp10(path: string, body: unknown): Promise<{ head: string; body: string }> {
    const bytes = Buffer.from(JSON.stringify(body));
    const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    socket.write(
      `POST ${path} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`,
    );
    socket.write(bytes);
    const parts: Buffer[] = [];
    for await (const part of socket as AsyncIterable<Buffer>) parts.push(part);
    const text = Buffer.concat(parts).toString('utf8');
    const end = text.indexOf('\r\n\r\n');
    return { head: text.slice(0, end).toLowerCase(), body: text.slice(end + 4) };
  }

  it('streams chat completions with the recovered call, without chunked framing or trailers', async () => {
    const answer = await postHttp10('/v1/chat/completions', {
      model: 'qwen3',
      stream: true,
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [weatherTool],
    });
    assert.match(answer.head, /^http\/1\.1 200/);
    assert.doesNotMatch(answer.head, /transfer-encoding|trailer/);
    assert.match(
      answer.body,
      /"tool_calls":\[\{"index":0,"id":"[^"]+","type":"function","function":\{"name":"get_weather"/,
    );
    assert.match(answer.body, /"finish_reason":"tool_calls"/);
    assert.match(answer.body, /data: \[DONE\]\n\n$/);
    assert.doesNotMatch(answer.body, markupPattern);
  });

  it('streams Anthropic messages with the call as a tool_use block', async () => {
    const answer = await postHttp10('/v1/messages', {
      model: 'qwen3',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ name: 'get_weather', input_schema: weatherTool.function.parameters }],
    });
    assert.match(answer.head, /^http\/1\.1 200/);
    assert.doesNotMatch(answer.head, /transfer-encoding|trailer/);
    assert.match(answer.body, /"type":"tool_use","id":"[^"]+","name":"get_weather"/);
    assert.match(answer.body, /"stop_reason":"tool_use"/);
    assert.match(answer.body, /event: message_stop/);
    assert.doesNotMatch(answer.body, markupPattern);
  });
});
