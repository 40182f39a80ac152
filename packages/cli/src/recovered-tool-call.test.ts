import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  chunkText,
  type ScriptedModelServer,
  type ScriptedRequest,
  startScriptedModelServer,
  textSteps,
} from '@toolbus/core/testing';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

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
  let home: string;
  let server: ScriptedModelServer;
  let env: Record<string, string>;
  // What the model writes on its first step of each chat (set per test).
  let written = '';
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-recovery-'));
    const docs = join(home, 'docs');
    await mkdir(docs);
    await writeFile(join(docs, 'refunds.md'), '# Refund Policy\n\nCustomers are refunded within 14 days.\n');
    server = await startScriptedModelServer({
      handler: (request) => {
        const answered = request.messages.some((message) => message.toolResults.length > 0);
        if (answered) return textSteps(['Refunds are paid within 14 days [1].']);
        return textSteps(chunkText(written, 5));
      },
    });
    // A Qwen model id: the model profile for Qwen is used, as for a real self-hosted Qwen.
    env = { TOOLBUS_HOME: home, TOOLBUS_MODEL: `openai-compatible:${server.url}/v1#qwen2.5-7b-instruct` };
    const indexed = await spawnCli(['index', docs], env);
    assert.equal(indexed.code, 0, indexed.stderr);
  });
  after(async () => {
    await server.close();
    await rm(home, { recursive: true, force: true });
  });

  function followUp(): ScriptedRequest {
    const request = server.requests.at(-1);
    assert.ok(request, 'the model was asked again with the tool result');
    return request;
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
    const result = await spawnCli(['chat', '--tools', 'internal_search', 'How fast are refunds?'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /✓ Internal Search — 1 document/);
    assert.match(result.stdout, /Refunds are paid within 14 days \[1\]\./);
    assert.doesNotMatch(answerLines(result.stdout), callText);
    assertStructuredCall(followUp(), '');
  });

  test('a Hermes <tool_call> after prose shows the prose only', async () => {
    written =
      'Let me check the policy.\n<tool_call>\n{"name": "internal_search", "arguments": {"queries": ["refund"]}}\n</tool_call>';
    const result = await spawnCli(['chat', '--tools', 'internal_search', 'How fast are refunds?'], env);
    assert.equal(result.code, 0, result.stderr);
    // The first line says the tool mode; the prose comes right after it.
    assert.match(
      result.stdout,
      /^tools: 1, all offered to the model \(no tool search\)\nLet me check the policy\./,
    );
    assert.doesNotMatch(answerLines(result.stdout), callText);
    assertStructuredCall(followUp(), 'Let me check the policy.');
  });

  test('a call written after prose is retracted: the output holds the prose, never the call', async () => {
    written = 'Let me check the policy.\n{"name": "internal_search", "arguments": {"queries": ["refund"]}}';
    const result = await spawnCli(['chat', '--tools', 'internal_search', 'How fast are refunds?'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^tools: 1, all offered to the model \(no tool search\)\nLet me check the policy\.\n… Internal Search/,
    );
    assert.doesNotMatch(answerLines(result.stdout), callText);
    assertStructuredCall(followUp(), 'Let me check the policy.');
  });

  test('the config overrides the dialects the model profile tries first', async () => {
    // Both a Hermes call and a pythonic call: the Qwen profile reads the Hermes one; the config says pythonic.
    written =
      '<tool_call>{"name": "internal_search", "arguments": {"queries": ["refund"]}}</tool_call>\n[internal_search(queries=["policy"])]';
    const wrong = await spawnCli(['config', 'set', 'toolCallDialects', 'pythonik'], env);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /did you mean "pythonic"\?/);
    const set = await spawnCli(['config', 'set', 'toolCallDialects', 'pythonic'], env);
    assert.equal(set.code, 0, set.stderr);
    try {
      const result = await spawnCli(['chat', '--tools', 'internal_search', 'How fast are refunds?'], env);
      assert.equal(result.code, 0, result.stderr);
      const assistant = followUp().messages.find((message) => message.role === 'assistant');
      assert.deepEqual(
        assistant?.toolCalls.map((call) => JSON.parse(call.arguments)),
        [{ queries: ['policy'] }],
      );
    } finally {
      await spawnCli(['config', 'unset', 'toolCallDialects'], env);
    }
    const byProfile = await spawnCli(['chat', '--tools', 'internal_search', 'How fast are refunds?'], env);
    assert.equal(byProfile.code, 0, byProfile.stderr);
    const assistant = followUp().messages.find((message) => message.role === 'assistant');
    assert.deepEqual(
      assistant?.toolCalls.map((call) => JSON.parse(call.arguments)),
      [{ queries: ['refund'] }],
    );
  });
});
