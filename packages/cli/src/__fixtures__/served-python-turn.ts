// One chat turn with run_python on a running `toolbus serve` (local auth), and what the scripted model saw of it:
// the serve tests of skills (live, and shared on PostgreSQL) read the same two things.
import assert from 'node:assert/strict';
import type { ScriptedModelServer, ScriptedRequest } from '@toolbus/core/testing';
import { postFirstMessage } from './post-first-message.ts';

/** What a turn showed: run_python's description, and what its runs printed. */
export interface TurnSeen {
  readonly description: string;
  readonly results: readonly string[];
}

/** Runs a turn whose user message is `content` in a new chat on `url`, to its end; what the model saw of it. */
export async function servedPythonTurn(
  url: string,
  model: Pick<ScriptedModelServer, 'requests'>,
  content: string,
): Promise<TurnSeen> {
  const { response } = await postFirstMessage(url, { content, tools: ['run_python'] });
  assert.equal(response.status, 200, await response.clone().text());
  const stream = await response.text();
  assert.match(stream, /"type":"stop","reason":"finished"/, stream);
  return seen(model.requests.filter((request) => request.messages[1]?.text === content));
}

function seen(requests: readonly ScriptedRequest[]): TurnSeen {
  const first = requests[0];
  assert.ok(first, 'the turn asked the model');
  const tools = (
    (first.body as { tools?: { function: { name: string; description: string } }[] }).tools ?? []
  ).map((tool) => tool.function);
  const description = tools.find((tool) => tool.name === 'run_python')?.description ?? '';
  const last = requests.at(-1)?.messages ?? [];
  const results = last.flatMap((message) => message.toolResults.map((result) => result.content));
  return { description, results };
}
