import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Packet, Tool } from '@toolbus/spec';
import * as z from 'zod';
import { scriptedModel } from '../llm/__fixtures__/scripted-providers.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.ts';
import { defineTool } from '../tool/define-tool.ts';
import { runChatTurn } from '../turn/run-chat-turn.ts';
import { estimateTokens, planToolset } from './plan-toolset.ts';
import { createToolSearchIndex } from './rank-tools.ts';

function apiTools(count: number, calls: string[]): Tool[] {
  const tools: Tool[] = [];
  for (let index = 0; index < count; index += 1) {
    tools.push(
      defineTool({
        name: `service_op_${index}`,
        description: `Reads record number ${index} of the inventory service.`,
        parameters: z.object({ record_id: z.string() }),
        run: () => `record ${index}`,
      }),
    );
  }
  tools.push(
    defineTool({
      name: 'issues_list_for_repo',
      description: 'List issues in a repository. Only open issues are listed by default.',
      parameters: z.object({ owner: z.string(), repo: z.string(), state: z.string().optional() }),
      run: ({ owner, repo }) => {
        calls.push(`${owner}/${repo}`);
        return `#1 Crash on start (${owner}/${repo})`;
      },
    }),
  );
  return tools;
}

describe('tool search index', () => {
  it('ranks by name, then parameters, then description, with prefixes and rare words first', () => {
    const index = createToolSearchIndex([
      { name: 'repos_get', description: 'Get a repository', parameters: { properties: { owner: {} } } },
      { name: 'issues_list_for_repo', description: 'List issues', parameters: { properties: { repo: {} } } },
      { name: 'users_get', description: 'Get a user; mentions issues once', parameters: {} },
      { name: 'gists_list', description: 'List gists', parameters: { properties: { since: {} } } },
    ]);
    const names = index.search('list open issues of a repo', 3).map((match) => match.definition.name);
    // The name and the parameter match "issues", "list" and "repo"; "repos_get" matches "repo" by prefix.
    assert.deepEqual(names, ['issues_list_for_repo', 'repos_get', 'gists_list']);
    assert.equal(index.search('repository', 1)[0]?.definition.name, 'repos_get', 'prefix of repos');
    assert.deepEqual(index.search('teleport', 5), []);
  });

  it('leaves a toolset within the limits as it is', () => {
    const tools = apiTools(10, []);
    const toolset = planToolset(tools, { maxTools: 20 });
    assert.equal(toolset.mode, 'all');
    assert.equal(toolset.current(), tools);
    assert.equal(planToolset(tools, { maxTools: 5 }).mode, 'search');
    const tokens = estimateTokens(tools.map((tool) => tool.definition()));
    assert.equal(planToolset(tools, { maxTools: 100, maxTokens: tokens - 1 }).mode, 'search');
  });
});

describe('a turn with more tools than the model takes', () => {
  let server: ScriptedModelServer;
  before(async () => {
    server = await startScriptedModelServer({
      handler: (request) => {
        const last = request.lastMessage;
        if (last?.role === 'user') {
          return [
            {
              type: 'tool-call',
              id: 'call_search',
              name: 'tool_search',
              arguments: { query: 'list issues of a repository' },
            },
          ];
        }
        if (last?.toolResults[0]?.toolCallId === 'call_search') {
          return [
            {
              type: 'tool-call',
              id: 'call_issues',
              name: 'issues_list_for_repo',
              arguments: { owner: 'octo', repo: 'demo' },
            },
          ];
        }
        return [{ type: 'text', text: `Open issues: ${last?.toolResults[0]?.content ?? ''}` }];
      },
    });
  });
  after(() => server.close());

  it('offers tool_search, loads what it found into the next cycle, and says so in the stream', async () => {
    const calls: string[] = [];
    const turn = runChatTurn({
      model: scriptedModel({ provider: 'openai-compatible', serverUrl: server.url }),
      messages: [{ role: 'user', content: 'Which issues are open in octo/demo?' }],
      tools: apiTools(300, calls),
      toolSearch: { maxTools: 128 },
    });
    const packets: Packet[] = [];
    for await (const packet of turn) packets.push(packet);
    const result = await turn.result;
    assert.equal(result.error, undefined, result.error?.message);
    assert.deepEqual(packets[0]?.obj, { type: 'tool-mode', mode: 'search', total: 301, offered: 1 });
    assert.deepEqual(server.requests[0]?.toolNames, ['tool_search']);
    const second = server.requests[1]?.toolNames ?? [];
    assert.equal(second[0], 'tool_search');
    assert.ok(second.includes('issues_list_for_repo'), 'the found tool is offered in the next cycle');
    assert.ok(second.length <= 6, 'only what was found, not the whole toolset');
    assert.deepEqual(calls, ['octo/demo']);
    assert.match(result.answer, /Crash on start \(octo\/demo\)/);
  });

  it('below the limits sends every tool and, asked, reports mode all', async () => {
    const turn = runChatTurn({
      model: scriptedModel({ provider: 'openai-compatible', serverUrl: server.url }),
      messages: [{ role: 'user', content: 'hello' }],
      tools: apiTools(3, []),
      toolSearch: {},
    });
    const packets: Packet[] = [];
    for await (const packet of turn) packets.push(packet);
    await turn.result;
    assert.deepEqual(packets[0]?.obj, { type: 'tool-mode', mode: 'all', total: 4, offered: 4 });
    const first = server.requests.find((request) => request.lastMessage?.text === 'hello');
    assert.equal(first?.toolNames.length, 4);
    assert.ok(!first?.toolNames.includes('tool_search'));
  });
});
