import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from '@toolbus/core/testing';
import type { Storage } from '@toolbus/storage';
import {
  eventually,
  lookupThenAnswer,
  lookupToolFactories,
  openTestStorage,
  readNdjson,
  readSse,
} from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

interface WirePacket {
  sequence: number;
  placement: { turn: number; tab: number };
  obj: { type: string; [key: string]: unknown };
}

let model: ScriptedModelServer;
let storage: Storage;
let server: ToolbusServer;
let http: ListeningServer;
let base: string;

before(async () => {
  model = await startScriptedModelServer({ handler: lookupThenAnswer({ chunkDelayMs: 30 }) });
  ({ storage } = await openTestStorage());
  server = await createServer({
    storage,
    auth: 'local',
    defaultModel: `openai-compatible:${model.url}/v1#scripted`,
    builtInToolFactories: () => lookupToolFactories({ delayMs: 50 }),
    heartbeatMs: 200,
  });
  http = await listen(server, { port: 0 });
  base = http.url;
});
after(async () => {
  await http.close();
  await storage.close();
  await model.close();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function newChat(): Promise<string> {
  const response = await call('POST', '/v1/chats', { title: 'Refunds' });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

/** A turn ("Refunds?") started in a new chat on a second server over this storage, whose model or tools are slow. */
interface SlowTurn {
  readonly chatId: string;
  /** The turn's stream, read to its end. */
  readonly reading: Promise<{ id: string | undefined; data: string }[]>;
  /** Asks the server to stop the turn; its answer. */
  stop(): Promise<unknown>;
}

/** Runs `body` with a {@link SlowTurn}; the second server and its model are closed after. */
async function withSlowTurn(
  options: {
    readonly handler: NonNullable<ScriptedModelServerOptions['handler']>;
    readonly toolFactories: ReturnType<typeof lookupToolFactories>;
  },
  body: (turn: SlowTurn) => Promise<void>,
): Promise<void> {
  const slowModel = await startScriptedModelServer({ handler: options.handler });
  const slow = await createServer({
    storage,
    auth: 'local',
    defaultModel: `openai-compatible:${slowModel.url}/v1#scripted`,
    builtInToolFactories: () => options.toolFactories,
  });
  const slowHttp = await listen(slow, { port: 0 });
  try {
    const chatId = await newChat();
    const response = await fetch(`${slowHttp.url}/v1/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Refunds?' }),
    });
    const stop = async () =>
      (await fetch(`${slowHttp.url}/v1/chats/${chatId}/turns/0/stop`, { method: 'POST' })).json();
    await body({ chatId, reading: readSse(response), stop });
  } finally {
    await slowHttp.close();
    await slowModel.close();
  }
}

function packetsOf(events: { id: string | undefined; data: string }[]): WirePacket[] {
  return events.map((event) => {
    const packet = JSON.parse(event.data) as WirePacket;
    assert.equal(event.id, String(packet.sequence), 'the SSE event id is the sequence');
    return packet;
  });
}

async function turnEnded(
  chatId: string,
  turn: number,
): Promise<{ status: string; endReason: string | null }> {
  return eventually(async () => {
    const detail = (await (await call('GET', `/v1/chats/${chatId}`)).json()) as {
      turns: { index: number; status: string; endReason: string | null }[];
    };
    const record = detail.turns.find((candidate) => candidate.index === turn);
    return record && record.status !== 'running' ? record : undefined;
  });
}

describe('chats over HTTP', () => {
  test('a turn streams over SSE with gapless ids, and the history holds the tool call, its result and the answer', async () => {
    const chatId = await newChat();
    const response = await call(
      'POST',
      `/v1/chats/${chatId}/messages`,
      { content: 'How long do refunds take?' },
      { accept: 'text/event-stream' },
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(response.headers.get('x-toolbus-turn'), '0');
    const packets = packetsOf(await readSse(response));
    assert.deepEqual(
      packets.map((packet) => packet.sequence),
      packets.map((_packet, index) => index + 1),
    );
    const types = packets.map((packet) => packet.obj.type);
    assert.ok(types.includes('tool-start'), types.join());
    assert.ok(types.includes('section-end'));
    assert.deepEqual(packets.at(-1)?.obj, { type: 'stop', reason: 'finished' });
    const answer = packets
      .filter((packet) => packet.obj.type === 'message-delta')
      .map((packet) => packet.obj.content)
      .join('');
    assert.match(answer, /Refunds take fourteen days/);

    const detail = (await (await call('GET', `/v1/chats/${chatId}`)).json()) as {
      messages: { turn: number; message: { role: string; toolCalls?: unknown[]; content: string } }[];
      turns: { status: string }[];
    };
    assert.deepEqual(
      detail.messages.map((stored) => stored.message.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.equal(detail.messages[1]?.message.toolCalls?.length, 1);
    assert.match(detail.messages[2]?.message.content ?? '', /refunds take 14 days/);
    assert.equal(detail.turns[0]?.status, 'completed');

    // A page reload: the same timeline, replayed from storage.
    const replay = packetsOf(await readSse(await call('GET', `/v1/chats/${chatId}/turns/0/stream`)));
    assert.deepEqual(replay, packets);
  });

  test('NDJSON: start without a stream (202), then read the turn as one packet per line', async () => {
    const chatId = await newChat();
    const started = await call('POST', `/v1/chats/${chatId}/messages?stream=none`, { content: 'Refunds?' });
    assert.equal(started.status, 202);
    const { turn, streamUrl } = (await started.json()) as { turn: number; streamUrl: string };
    assert.equal(turn, 0);
    const response = await fetch(`${base}${streamUrl}`, { headers: { accept: 'application/x-ndjson' } });
    assert.match(response.headers.get('content-type') ?? '', /application\/x-ndjson/);
    const lines = await readNdjson(response);
    assert.deepEqual(
      lines.map((line) => line.sequence),
      lines.map((_line, index) => index + 1),
    );
    assert.deepEqual((lines.at(-1) as unknown as WirePacket).obj, { type: 'stop', reason: 'finished' });
  });

  test('a client that disconnects does not stop the turn; Last-Event-ID resumes with no loss and no duplicate', async () => {
    const chatId = await newChat();
    const first = await call('POST', `/v1/chats/${chatId}/messages`, { content: 'Refunds?' });
    const seen = packetsOf(await readSse(first, (_event, index) => index < 2));
    assert.equal(seen.length, 3);
    // Reconnect while the turn still runs: live packets follow the replayed ones.
    const resumed = await call('GET', `/v1/chats/${chatId}/turns/0/stream`, undefined, {
      'last-event-id': String(seen.at(-1)?.sequence),
    });
    const rest = packetsOf(await readSse(resumed));
    const whole = [...seen, ...rest];
    assert.deepEqual(
      whole.map((packet) => packet.sequence),
      whole.map((_packet, index) => index + 1),
    );
    assert.deepEqual(whole.at(-1)?.obj, { type: 'stop', reason: 'finished' });
    assert.equal((await turnEnded(chatId, 0)).status, 'completed');
    const replay = packetsOf(await readSse(await call('GET', `/v1/chats/${chatId}/turns/0/stream?after=0`)));
    assert.deepEqual(replay, whole);
    const tail = packetsOf(await readSse(await call('GET', `/v1/chats/${chatId}/turns/0/stream?after=5`)));
    assert.deepEqual(tail, whole.slice(5));
  });

  test('stop mid-tool: the tool is aborted, the call has a result in history, the stream ends user-cancelled', async () => {
    const toolFactories = lookupToolFactories({ delayMs: 60_000 });
    await withSlowTurn({ handler: lookupThenAnswer(), toolFactories }, async ({ chatId, reading, stop }) => {
      await eventually(async () =>
        (await storage.chats.listPackets({ chatId, turn: 0 })).some(
          (stored) => (stored.packet as WirePacket).obj.type === 'tool-start',
        )
          ? true
          : undefined,
      );
      assert.deepEqual(await stop(), { stopped: true });
      const packets = packetsOf(await reading);
      assert.deepEqual(packets.at(-1)?.obj, { type: 'stop', reason: 'user-cancelled' });
      // The stream says the call was cancelled, at its placement, before its section ends (not a silent end).
      const start = packets.findIndex((packet) => packet.obj.type === 'tool-start');
      const atTool = packets
        .slice(start)
        .filter((packet) => JSON.stringify(packet.placement) === JSON.stringify(packets[start]?.placement));
      assert.deepEqual(
        atTool.map((packet) => packet.obj.type),
        ['tool-start', 'tool-end', 'section-end'],
      );
      assert.equal(atTool[1]?.obj.status, 'aborted');
      const error = atTool[1]?.obj.error as { code: string; message: string } | undefined;
      assert.equal(error?.code, 'aborted');
      assert.match(String(error?.message), /cancelled before this tool finished/);
      const turn = await storage.chats.getTurn({ chatId, turn: 0 });
      assert.equal(turn?.status, 'stopped');
      const history = (await storage.chats.listMessages(chatId)).map((stored) => stored.message);
      const calls = history.flatMap((message) =>
        message.role === 'assistant' ? (message.toolCalls ?? []) : [],
      );
      const results = history.filter((message) => message.role === 'tool');
      assert.equal(calls.length, 1);
      assert.deepEqual(
        results.map((message) => message.role === 'tool' && message.toolCallId),
        calls.map((toolCall) => toolCall.id),
      );
      assert.deepEqual(await stop(), { stopped: false });
    });
  });

  test('stop mid-answer: the history keeps the answer streamed so far, after the tool call and its result', async () => {
    const lookupFirst = lookupThenAnswer();
    const handler: NonNullable<ScriptedModelServerOptions['handler']> = (request) =>
      request.messages.at(-1)?.role === 'tool'
        ? [
            { type: 'text', text: 'Refunds take ' },
            { type: 'delay', ms: 60_000 },
            { type: 'text', text: 'fourteen days.' },
          ]
        : lookupFirst(request);
    await withSlowTurn(
      { handler, toolFactories: lookupToolFactories() },
      async ({ chatId, reading, stop }) => {
        // Stop once the tool's result is in and the answer began (its rest is a minute away).
        await eventually(async () => {
          const packets = (await storage.chats.listPackets({ chatId, turn: 0 })).map(
            (stored) => stored.packet as WirePacket,
          );
          const end = packets.findIndex((packet) => packet.obj.type === 'section-end');
          return end >= 0 && packets.slice(end).some((packet) => packet.obj.type === 'message-delta')
            ? true
            : undefined;
        });
        assert.deepEqual(await stop(), { stopped: true });
        const packets = packetsOf(await reading);
        assert.deepEqual(packets.at(-1)?.obj, { type: 'stop', reason: 'user-cancelled' });
        const shown = packets
          .slice(packets.findIndex((packet) => packet.obj.type === 'section-end'))
          .flatMap((packet) => (packet.obj.type === 'message-delta' ? [String(packet.obj.content)] : []))
          .join('')
          .trim();
        assert.equal(shown, 'Refunds take');
        const history = (await storage.chats.listMessages(chatId)).map((stored) => stored.message);
        assert.deepEqual(
          history.map((message) => message.role),
          ['user', 'assistant', 'tool', 'assistant'],
        );
        assert.equal(history.at(-1)?.content, 'Refunds take');
      },
    );
  });

  test('list, rename and delete', async () => {
    const chatId = await newChat();
    const renamed = await call('PATCH', `/v1/chats/${chatId}`, { title: 'Returns' });
    assert.equal(((await renamed.json()) as { title: string }).title, 'Returns');
    const list = (await (await call('GET', '/v1/chats')).json()) as { chats: { id: string }[] };
    assert.equal(list.chats[0]?.id, chatId);
    assert.equal((await call('DELETE', `/v1/chats/${chatId}`)).status, 204);
    assert.equal((await call('GET', `/v1/chats/${chatId}`)).status, 404);
  });

  test('bad input is a 4xx naming the field, and the process keeps serving', async () => {
    const chatId = await newChat();
    const expect = async (response: Response, status: number, field: string | undefined) => {
      const body = (await response.json()) as { error: { code: string; field?: string; message: string } };
      assert.equal(response.status, status, JSON.stringify(body));
      assert.equal(body.error.field, field, JSON.stringify(body));
      if (field) assert.ok(body.error.message.includes(field), body.error.message);
    };
    await expect(await call('POST', `/v1/chats/${chatId}/messages`, { content: '' }), 400, 'body.content');
    await expect(await call('POST', `/v1/chats/${chatId}/messages`, '{"content":'), 400, 'body');
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, 'content=x', { 'content-type': 'text/plain' }),
      415,
      'header.content-type',
    );
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, { content: 'x'.repeat(2 * 1024 * 1024) }),
      413,
      'body',
    );
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, { content: 'hi', personaId: 'nope' }),
      400,
      'body.personaId',
    );
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, { content: 'hi', fileIds: ['someone-elses'] }),
      400,
      'body.fileIds.0',
    );
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, { content: 'hi', tools: ['rm_rf'] }),
      400,
      'body.tools.0',
    );
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, {
        content: 'hi',
        model: 'openai-compatible:http://169.254.169.254/v1#x',
      }),
      400,
      'body.model',
    );
    await expect(await call('GET', '/v1/chats/missing'), 404, 'path.chatId');
    await expect(await call('GET', `/v1/chats/${chatId}/turns/0/stream`), 404, 'path.turn');
    await expect(await call('GET', `/v1/chats/${chatId}/turns/x/stream`), 400, 'path.turn');
    // A finished turn, then malformed and impossible cursors.
    await readSse(await call('POST', `/v1/chats/${chatId}/messages`, { content: 'Refunds?' }));
    await expect(await call('GET', `/v1/chats/${chatId}/turns/0/stream?after=abc`), 400, 'query.after');
    await expect(await call('GET', `/v1/chats/${chatId}/turns/0/stream?after=-1`), 400, 'query.after');
    await expect(
      await call('GET', `/v1/chats/${chatId}/turns/0/stream`, undefined, { 'last-event-id': '1e3' }),
      400,
      'header.last-event-id',
    );
    await expect(await call('GET', `/v1/chats/${chatId}/turns/0/stream?after=99999`), 400, 'query.after');
    // A non-loopback Host header (DNS rebinding) is refused in local mode.
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${base}/v1/chats`, { headers: { host: 'evil.example' } }, (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      request.on('error', reject);
      request.end();
    });
    assert.equal(rebound.status, 403);
    assert.equal((JSON.parse(rebound.body) as { error: { field: string } }).error.field, 'header.host');
    assert.equal((await call('GET', '/health')).status, 200);
  });

  test('a hostile client: unknown fields, blank and NUL titles, loose turn numbers, cursors past the end', async () => {
    const chatId = await newChat();
    const expect = async (response: Response, status: number, field: string) => {
      const body = (await response.json()) as { error: { field?: string; message: string } };
      assert.equal(response.status, status, JSON.stringify(body));
      assert.equal(body.error.field, field, JSON.stringify(body));
      assert.ok(body.error.message.startsWith(`${field}: `), body.error.message);
      return body.error.message;
    };
    // A misspelt optional field is refused (not silently dropped), naming it and the fields there are.
    const misspelt = await expect(await call('POST', '/v1/chats', { titel: 'Refunds' }), 400, 'body.titel');
    assert.match(misspelt, /title, personaId/);
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, { content: 'hi', reserch: true }),
      400,
      'body.reserch',
    );
    // Titles: blank after trimming, and NUL characters (which PostgreSQL cannot store), name body.title.
    await expect(await call('POST', '/v1/chats', { title: '   ' }), 400, 'body.title');
    await expect(await call('PATCH', `/v1/chats/${chatId}`, { title: ' \n ' }), 400, 'body.title');
    await expect(await call('PATCH', `/v1/chats/${chatId}`, { title: 'a\u0000b' }), 400, 'body.title');
    await expect(
      await call('POST', `/v1/chats/${chatId}/messages`, { content: 'x', tools: ['a', 'b\u0000'] }),
      400,
      'body.tools.1',
    );
    // Unicode titles up to the limit are kept as sent (trimmed), one character over is refused.
    const unicode = `${'日本語🎉'.repeat(40)}`;
    const created = await call('POST', '/v1/chats', { title: ` ${unicode} ` });
    assert.equal(created.status, 201);
    assert.equal(((await created.json()) as { title: string }).title, unicode);
    await expect(await call('POST', '/v1/chats', { title: 'é'.repeat(201) }), 400, 'body.title');
    // A turn number is digits only: not " ", "1e0", "0x0" or "+0" (which Number() reads as 0 or 1).
    await readSse(await call('POST', `/v1/chats/${chatId}/messages`, { content: 'Refunds?' }));
    for (const turn of ['%20', '1e0', '0x0', '+0', '0.0']) {
      await expect(await call('GET', `/v1/chats/${chatId}/turns/${turn}/stream`), 400, 'path.turn');
      await expect(await call('POST', `/v1/chats/${chatId}/turns/${turn}/stop`), 400, 'path.turn');
    }
    // A cursor past the end names the one that was sent.
    await expect(
      await call('GET', `/v1/chats/${chatId}/turns/0/stream`, undefined, { 'last-event-id': '99999' }),
      400,
      'header.last-event-id',
    );
    // A cursor at the end is valid: the stream is empty and ends at once.
    const packets = await readSse(await call('GET', `/v1/chats/${chatId}/turns/0/stream`));
    const last = packets.at(-1)?.id;
    assert.deepEqual(
      await readSse(await call('GET', `/v1/chats/${chatId}/turns/0/stream?after=${last}`)),
      [],
    );
    // Stopping a finished turn is no error: nothing was running.
    assert.deepEqual(await (await call('POST', `/v1/chats/${chatId}/turns/0/stop`)).json(), {
      stopped: false,
    });
    assert.equal((await call('GET', '/health')).status, 200);
  });

  test('two turns of one chat cannot run at once', async () => {
    const chatId = await newChat();
    const first = await call('POST', `/v1/chats/${chatId}/messages?stream=none`, { content: 'Refunds?' });
    assert.equal(first.status, 202);
    const second = await call('POST', `/v1/chats/${chatId}/messages?stream=none`, { content: 'Again?' });
    assert.equal(second.status, 409);
    await turnEnded(chatId, 0);
  });
});
