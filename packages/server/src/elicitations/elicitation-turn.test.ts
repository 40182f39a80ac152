// MCP elicitation in a chat turn, end to end: real MCP SDK servers on loopback, one on 2025-11-25 (its tool sends
// `elicitation/create` on the call's stream) and one on 2026-07-28 only (its tool answers `input_required` and
// reads the answer from the retried call), reached by toolbus's client in a turn of a real server. The question
// shows as an `elicitation-request` packet at the tool call; only the chat's owner answers it through
// POST /v1/chats/{chatId}/elicitations/{id}; the server receives accept (defaults applied), decline, or, when
// nobody answers in time, cancel, and the model reads that the user did not answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inputRequired } from '@modelcontextprotocol/server';
import { createGuardedFetch } from '@toolbus/core/node';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import {
  type LoopbackMcpServer,
  type ModernMcpServer,
  startLoopbackMcpServer,
  startModernMcpServer,
} from '@toolbus/mcp/testing';
import { apiCaller, newUserKey as newUserKeyOf } from '../__fixtures__/api-calls.ts';
import { seedApprovedMcpServer } from '../__fixtures__/approved-mcp-server.ts';
import { bookTableTool } from '../__fixtures__/book-table-tool.ts';
import { startTestApi, type TestApi } from '../__fixtures__/test-api.ts';
import { readSse } from '../__fixtures__/test-server.ts';

interface WirePacket {
  placement: { turn: number; tab: number; path?: unknown[] };
  obj: { type: string; [key: string]: unknown };
}

const bookingSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
  },
  required: ['name', 'guests'],
} as const;

let api: TestApi;
let model: ScriptedModelServer;
let legacy: LoopbackMcpServer;
let modern: ModernMcpServer;
/** What each server's tool received as the user's answer, in order. */
const serverSaw: unknown[] = [];
/** The tool results the model read, in order. */
const toolResults: string[] = [];
let calls = 0;

before(async () => {
  legacy = await startLoopbackMcpServer([bookTableTool({ requestedSchema: bookingSchema, saw: serverSaw })]);
  modern = await startModernMcpServer([
    {
      name: 'deploy',
      description: 'Deploys after the user confirms',
      call: (_args, context) => {
        const response = context.mcpReq.inputResponses?.confirm;
        if (response === undefined) {
          return inputRequired({
            inputRequests: {
              confirm: inputRequired.elicit({
                message: 'Deploy to production?',
                requestedSchema: {
                  type: 'object',
                  properties: { confirm: { type: 'boolean', default: true } },
                  required: ['confirm'],
                },
              }),
            },
            requestState: 'deploy-round-1',
          }) as never;
        }
        serverSaw.push({ state: context.mcpReq.requestState<string>() ?? null, ...(response as object) });
        return { content: [{ type: 'text', text: `deploy: ${JSON.stringify(response)}` }] };
      },
    },
  ]);
  model = await startScriptedModelServer({
    handler: (request) => {
      const last = request.lastMessage;
      if (last?.role === 'tool') {
        toolResults.push(last.toolResults[0]?.content ?? '');
        return [{ type: 'text', text: 'Done.' }];
      }
      const name = last?.text.includes('deploy') ? 'deploy' : 'book_table';
      calls += 1;
      return [{ type: 'tool-call', id: `call_${calls}`, name, arguments: {} }];
    },
  });
  const fetch = createGuardedFetch({ level: 'strict', allow: ['127.0.0.1'] }) as typeof globalThis.fetch;
  api = await startTestApi({
    server: async (storage) => {
      const persona = (await storage.personas.list()).find((item) => item.name === 'default');
      assert.ok(persona);
      for (const [name, url] of [
        ['bistro', legacy.url],
        ['releases', modern.url],
      ] as const) {
        await seedApprovedMcpServer(storage, { name, url, personaId: persona.id, fetch });
      }
      return {
        auth: 'api-keys',
        defaultModel: `openai-compatible:${model.url}/v1#scripted`,
        defaultPersonaId: persona.id,
        fetch,
        elicitationTimeoutMs: 2_000,
      };
    },
    adminEmail: 'admin@example.com',
  });
});
after(async () => {
  await api?.close();
  await model?.close();
  await legacy?.close();
  await modern?.close();
});

const call = apiCaller(() => api.http.url);
const newUserKey = (email: string) => newUserKeyOf({ baseUrl: api.http.url, adminKey: api.adminKey, email });

/** Runs one turn, calling `onQuestion` (with the chat id) when the elicitation request arrives. */
async function runTurn(
  key: string,
  content: string,
  onQuestion: (packet: WirePacket, chatId: string) => Promise<void> | void,
): Promise<WirePacket[]> {
  const chat = (await (await call('POST', '/v1/chats', key, { title: 'Ask' })).json()) as { id: string };
  const answered: Promise<void>[] = [];
  const events = await readSse(
    await call('POST', `/v1/chats/${chat.id}/messages`, key, { content }),
    (event) => {
      const packet = JSON.parse(event.data) as WirePacket;
      if (packet.obj.type === 'elicitation-request')
        answered.push(Promise.resolve(onQuestion(packet, chat.id)));
    },
  );
  await Promise.all(answered);
  return events.map((event) => JSON.parse(event.data) as WirePacket);
}

const answerPath = (chatId: string, packet: WirePacket) =>
  `/v1/chats/${chatId}/elicitations/${String(packet.obj.elicitationId)}`;

describe('MCP elicitation in a chat turn', () => {
  test('2025-11-25: the form shows at its tool call, only the owner answers, and the server gets the content with defaults', async () => {
    const alice = await newUserKey('alice@example.com');
    const bob = await newUserKey('bob@example.com');
    const packets = await runTurn(alice, 'book a table', async (packet, chatId) => {
      assert.equal(packet.obj.mode, 'form');
      assert.equal(packet.obj.message, 'Who is the booking for?');
      assert.equal(packet.obj.serverName, 'bistro');
      assert.deepEqual(packet.obj.requestedSchema, bookingSchema);
      // Bob cannot answer Alice's question, in her chat or by guessing: for him it does not exist.
      const stolen = await call('POST', answerPath(chatId, packet), bob, { action: 'accept', content: {} });
      assert.equal(stolen.status, 404);
      // Content that does not fit the form is refused with every problem named; the question keeps waiting.
      const wrong = await call('POST', answerPath(chatId, packet), alice, {
        action: 'accept',
        content: { guests: 40, table: 'window' },
      });
      assert.equal(wrong.status, 400);
      const problem = (await wrong.json()) as { error: { message: string } };
      assert.match(problem.error.message, /name: required/);
      assert.match(problem.error.message, /guests: must be at most 12/);
      assert.match(problem.error.message, /table: the form has no such field/);
      const unknown = await call('POST', `/v1/chats/${chatId}/elicitations/nope`, alice, {
        action: 'decline',
      });
      assert.equal(unknown.status, 404);
      const bad = await call('POST', answerPath(chatId, packet), alice, { action: 'maybe' });
      assert.equal(bad.status, 400);
      const answered = await call('POST', answerPath(chatId, packet), alice, {
        action: 'accept',
        content: { name: 'Ada' },
      });
      const body = await answered.text();
      assert.equal(answered.status, 200, body);
      assert.deepEqual(JSON.parse(body), {
        elicitationId: packet.obj.elicitationId,
        resolution: 'accept',
      });
      // Answered once: a second answer finds nothing waiting.
      const again = await call('POST', answerPath(chatId, packet), alice, { action: 'decline' });
      assert.equal(again.status, 404);
    });
    const start = packets.find((packet) => packet.obj.type === 'tool-start');
    const request = packets.find((packet) => packet.obj.type === 'elicitation-request');
    const resolved = packets.find((packet) => packet.obj.type === 'elicitation-resolved');
    assert.ok(start && request && resolved);
    assert.deepEqual(request.placement, start.placement, 'the question sits at the book_table call');
    assert.equal(request.obj.toolCallId, start.obj.toolCallId);
    assert.ok(Date.parse(String(request.obj.expiresAt)) > Date.now() - 60_000);
    assert.equal(resolved.obj.resolution, 'accept');
    assert.deepEqual(serverSaw.at(-1), { action: 'accept', content: { name: 'Ada', guests: 2 } });
    assert.match(toolResults.at(-1) ?? '', /"guests":2/);
  });

  test('2025-11-25: declining reaches the server as decline', async () => {
    const carol = await newUserKey('carol@example.com');
    const packets = await runTurn(carol, 'book a table', async (packet, chatId) => {
      const answered = await call('POST', answerPath(chatId, packet), carol, { action: 'decline' });
      assert.equal(answered.status, 200);
    });
    assert.equal(
      packets.find((packet) => packet.obj.type === 'elicitation-resolved')?.obj.resolution,
      'decline',
    );
    assert.deepEqual(serverSaw.at(-1), { action: 'decline' });
  });

  test('2026-07-28: the input_required round is answered by the owner and the call retried with the request state', async () => {
    const dave = await newUserKey('dave@example.com');
    const packets = await runTurn(dave, 'deploy it', async (packet, chatId) => {
      assert.equal(packet.obj.message, 'Deploy to production?');
      assert.equal(packet.obj.serverName, 'releases');
      const answered = await call('POST', answerPath(chatId, packet), dave, {
        action: 'accept',
        content: {},
      });
      assert.equal(answered.status, 200, await answered.text());
    });
    assert.equal(
      packets.find((packet) => packet.obj.type === 'elicitation-resolved')?.obj.resolution,
      'accept',
    );
    assert.deepEqual(serverSaw.at(-1), {
      state: 'deploy-round-1',
      action: 'accept',
      content: { confirm: true },
    });
    assert.match(toolResults.at(-1) ?? '', /deploy: .*"confirm":true/);
  });

  test('nobody answering: the wait ends, the server gets cancel, the model reads that the user did not answer', async () => {
    const erin = await newUserKey('erin@example.com');
    let late: (() => Promise<Response>) | undefined;
    const packets = await runTurn(erin, 'book a table', (packet, chatId) => {
      late = () => call('POST', answerPath(chatId, packet), erin, { action: 'decline' });
    });
    assert.equal(
      packets.find((packet) => packet.obj.type === 'elicitation-resolved')?.obj.resolution,
      'expired',
    );
    assert.deepEqual(serverSaw.at(-1), { action: 'cancel' });
    assert.match(toolResults.at(-1) ?? '', /did not answer in time/);
    assert.match(toolResults.at(-1) ?? '', /Who is the booking for\?/);
    assert.equal((await late?.())?.status, 404, 'an answer after the wait finds nothing');
  });
});
