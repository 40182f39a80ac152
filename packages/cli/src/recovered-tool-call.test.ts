import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ScriptedModelServer, ScriptedRequest } from '@toolbus/core/testing';
import { indexCliDocs, REFUND_POLICY, setCliConfig } from './__fixtures__/cli-home.ts';
import { type ScriptedCliHome, startScriptedCliHome } from './__fixtures__/scripted-cli-home.ts';
import { spawnCli } from './__fixtures__/spawn-cli.ts';
import { QWEN_MODEL_ID, textCallingModel } from './__fixtures__/text-calling-model.ts';

// End to end: a weak model that writes its tool call as text, behind the real `toolbus chat` command. The user
// sees the tool run and the answer, never the call's text, and the next request the model gets carries the
// call as a structured tool call.

const callText = /internal_search|"queries"|"name"|tool_call|\{|\}/;

/** The output without the tool status lines (which show the structured call's arguments on purpose). */
function answerLines(stdout: string): string {
  return stdout
    .split('\n')
    .filter((line) => !/^[…✓✗] /.test(line))
    .join('\n');
}

describe('toolbus chat with a model that writes tool calls as text', () => {
  let cli: ScriptedCliHome;
  let server: ScriptedModelServer;
  let env: Record<string, string>;
  // What the model writes on its first step of each chat (set per test).
  let written = '';
  before(async () => {
    cli = await startScriptedCliHome({
      prefix: 'toolbus-recovery-',
      modelId: QWEN_MODEL_ID,
      handler: textCallingModel({ written: () => written, answer: 'Refunds are paid within 14 days [1].' }),
    });
    ({ model: server, env } = cli);
    await indexCliDocs(cli, { 'refunds.md': REFUND_POLICY });
  });
  after(async () => {
    await cli.close();
  });

  /** Asks how fast refunds are with internal_search the only tool; the chat must succeed. Returns its stdout. */
  async function askRefunds(): Promise<string> {
    const result = await spawnCli(['chat', '--tools', 'internal_search', 'How fast are refunds?'], env);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  }

  function followUp(): ScriptedRequest {
    const request = server.requests.at(-1);
    assert.ok(request, 'the model was asked again with the tool result');
    return request;
  }

  /** The arguments of the structured calls in the history of the model's last request. */
  function followUpCallArguments(): unknown[] | undefined {
    const assistant = followUp().messages.find((message) => message.role === 'assistant');
    return assistant?.toolCalls.map((call) => JSON.parse(call.arguments));
  }

  function assertStructuredCall(request: ScriptedRequest, prose: string): void {
    const assistant = request.messages.find((message) => message.role === 'assistant');
    assert.equal(assistant?.toolCalls.length, 1, 'the history holds the call as a tool call');
    assert.equal(assistant?.toolCalls[0]?.name, 'internal_search');
    assert.deepEqual(JSON.parse(assistant?.toolCalls[0]?.arguments ?? '{}'), { queries: ['refund'] });
    assert.equal(assistant?.text.trim(), prose, 'and the prose around it, not its text');
    const result = request.messages.flatMap((message) => message.toolResults)[0];
    assert.equal(result?.toolCallId, assistant?.toolCalls[0]?.id);
    assert.match(result?.content ?? '', /refunded within 14 days/);
  }

  test('a bare JSON call is never shown; the tool runs and the answer follows', async () => {
    written = '{"name": "internal_search", "arguments": {"queries": ["refund"]}}';
    const stdout = await askRefunds();
    assert.match(stdout, /✓ Internal Search — 1 document/);
    assert.match(stdout, /Refunds are paid within 14 days \[1\]\./);
    assert.doesNotMatch(answerLines(stdout), callText);
    assertStructuredCall(followUp(), '');
  });

  test('a Hermes <tool_call> after prose shows the prose only', async () => {
    written =
      'Let me check the policy.\n<tool_call>\n{"name": "internal_search", "arguments": {"queries": ["refund"]}}\n</tool_call>';
    const stdout = await askRefunds();
    // The first line says the tool mode; the prose comes right after it.
    assert.match(stdout, /^tools: 1, all offered to the model \(no tool search\)\nLet me check the policy\./);
    assert.doesNotMatch(answerLines(stdout), callText);
    assertStructuredCall(followUp(), 'Let me check the policy.');
  });

  test('a call written after prose is retracted: the output holds the prose, never the call', async () => {
    written = 'Let me check the policy.\n{"name": "internal_search", "arguments": {"queries": ["refund"]}}';
    const stdout = await askRefunds();
    assert.match(
      stdout,
      /^tools: 1, all offered to the model \(no tool search\)\nLet me check the policy\.\n… Internal Search/,
    );
    assert.doesNotMatch(answerLines(stdout), callText);
    assertStructuredCall(followUp(), 'Let me check the policy.');
  });

  test('the config overrides the dialects the model profile tries first', async () => {
    // A Hermes call, hidden as it streams, and a pythonic call namespaced `default_api.` within a line of prose,
    // which streams as written (a `functions.` one is held and cut, see docs/weak-models.md):
    // the Qwen profile reads the Hermes one alone. With pythonic first the prose's call is read too, and the hidden
    // Hermes block still runs: text hidden while streaming is never left uncalled.
    written =
      '<tool_call>{"name": "internal_search", "arguments": {"queries": ["refund"]}}</tool_call>\nAnd default_api.internal_search(queries=["policy"]) too.';
    const wrong = await spawnCli(['config', 'set', 'toolCallDialects', 'pythonik'], env);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /did you mean "pythonic"\?/);
    await setCliConfig(env, [['toolCallDialects', 'pythonic']]);
    try {
      await askRefunds();
      assert.deepEqual(followUpCallArguments(), [{ queries: ['refund'] }, { queries: ['policy'] }]);
    } finally {
      await spawnCli(['config', 'unset', 'toolCallDialects'], env);
    }
    await askRefunds();
    assert.deepEqual(followUpCallArguments(), [{ queries: ['refund'] }]);
  });
});
