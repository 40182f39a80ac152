// `toolbus serve` honours the settings `toolbus chat` honours: the per-model tool limits (tool search above them)
// and the text tool-call dialects recovery tries first. Both are read from the same config file by the real
// command, and the scripted model sees what each turn offered and how its text call was read.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ScriptedModelServer, ScriptedRequest } from '@toolbus/core/testing';
import { TITLE_INSTRUCTION } from '@toolbus/server';
import { postFirstMessage } from '../__fixtures__/post-first-message.ts';
import { type ScriptedCliHome, startScriptedCliHome } from '../__fixtures__/scripted-cli-home.ts';
import { startCli } from '../__fixtures__/spawn-cli.ts';
import { QWEN_MODEL_ID, textCallingModel } from '../__fixtures__/text-calling-model.ts';

describe('toolbus serve reads the tool settings of the config file', () => {
  let cli: ScriptedCliHome;
  let model: ScriptedModelServer;
  // A Hermes call, hidden as it streams, and a pythonic call within a line of prose, which streams as written: the
  // Qwen profile reads the Hermes one alone; with the config's pythonic first the prose's call is read as well, and
  // the hidden Hermes block still runs (text hidden while streaming is never left uncalled).
  const written =
    '<tool_call>{"name": "internal_search", "arguments": {"queries": ["refund"]}}</tool_call>\nAnd functions.internal_search(queries=["policy"]) too.';
  before(async () => {
    cli = await startScriptedCliHome({
      prefix: 'toolbus-serve-settings-',
      modelId: QWEN_MODEL_ID,
      handler: textCallingModel({
        written: () => written,
        answer: 'Done.',
        writesFor: (request) => request.toolNames.includes('internal_search'),
      }),
    });
    ({ model } = cli);
  });
  after(async () => {
    await cli.close();
  });

  /** Serves with `config`, asks one question on the native SSE route, and returns the stream's text. */
  async function askServe(config: Record<string, unknown>): Promise<string> {
    await writeFile(join(cli.home, 'config.json'), JSON.stringify(config));
    const serve = startCli(['serve', '--port', '0'], cli.env);
    try {
      await serve.waitForOutput('OpenAPI document');
      const url = /serving on (\S+)/.exec(serve.output().stdout)?.[1];
      assert.ok(url, serve.output().stdout);
      const { response } = await postFirstMessage(url, { content: 'How fast are refunds?' });
      assert.equal(response.status, 200);
      return await response.text();
    } finally {
      serve.child.kill('SIGTERM');
      assert.equal(await serve.exited, 0, serve.output().stderr);
    }
  }

  // `toolbus serve` titles a new chat with one more model request after its first answer: the turn's own requests
  // are the others, whenever the title request arrives.
  const isTitleRequest = (request: ScriptedRequest) =>
    request.messages.some(
      (message) => message.role === 'system' && message.text.startsWith(TITLE_INSTRUCTION),
    );
  const chatRequests = () => model.requests.filter((request) => !isTitleRequest(request));

  function firstRequestOfLastTurn(turnRequests: number): ScriptedRequest {
    const request = chatRequests().at(-turnRequests);
    assert.ok(request);
    return request;
  }

  test('toolCallDialects: the config overrides the dialects the model profile tries first', async () => {
    const stream = await askServe({ toolCallDialects: ['pythonic'] });
    assert.match(stream, /"type":"stop"/);
    const followUp = chatRequests().at(-1);
    const assistant = followUp?.messages.find((message) => message.role === 'assistant');
    assert.deepEqual(
      assistant?.toolCalls.map((call) => JSON.parse(call.arguments)),
      [{ queries: ['refund'] }, { queries: ['policy'] }],
      'the pythonic call the Qwen profile would not read was read',
    );
    // No tool limits configured: every tool is offered, and the stream says nothing about a tool mode.
    assert.ok(firstRequestOfLastTurn(2).toolNames.includes('internal_search'));
    assert.doesNotMatch(stream, /"type":"tool-mode"/);
  });

  test('toolLimits: above the model’s limit the turn offers tool search instead of every tool', async () => {
    const stream = await askServe({ toolLimits: { '*': { maxTools: 1 } } });
    const offered = chatRequests().at(-1)?.toolNames ?? [];
    assert.ok(offered.includes('tool_search'), `offered: ${offered.join(', ')}`);
    assert.ok(!offered.includes('internal_search'), 'the tools themselves wait to be found');
    assert.match(stream, /"type":"tool-mode","mode":"search"/);
  });
});
