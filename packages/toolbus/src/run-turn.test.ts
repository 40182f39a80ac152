import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runChatTurn as coreRunChatTurn, resolveLanguageModel } from '@toolbus/core';
import { startScriptedModelServer } from '@toolbus/core/testing';
import { runChatTurn, runTurn } from './index.ts';

test('runTurn switches to Deep Research with the research option, and stays a chat turn without it', async () => {
  const server = await startScriptedModelServer({
    turns: [[{ type: 'text', text: 'A plain answer.' }]],
  });
  try {
    const model = resolveLanguageModel(
      { provider: 'openai', model: 'gpt-test', baseUrl: `${server.url}/v1` },
      { env: { OPENAI_API_KEY: 'k' } },
    );
    const messages = [{ role: 'user' as const, content: 'Hello?' }];
    const chat = runTurn({ model, messages });
    for await (const _packet of chat) {
      // drained
    }
    assert.equal((await chat.result).answer, 'A plain answer.');
    assert.equal(server.requests.length, 1);

    // Deep Research's context gate answers before any model call: the switch reached runDeepResearch.
    const research = runTurn({ model, messages, research: { contextWindowTokens: 8_000 } });
    const types: string[] = [];
    for await (const packet of research) types.push(packet.obj.type);
    const result = await research.result;
    assert.equal(result.error?.code, 'context_too_small');
    assert.deepEqual(types, ['error', 'stop']);
    assert.equal(server.requests.length, 1);
    // The umbrella's runChatTurn is core's: one name, one function.
    assert.equal(runChatTurn, coreRunChatTurn);
  } finally {
    await server.close();
  }
});
