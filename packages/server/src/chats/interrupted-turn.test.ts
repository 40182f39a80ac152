import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { lookupThenAnswer, readSse } from '../__fixtures__/test-server.ts';

const fixture = new URL('../__fixtures__/serve-process.ts', import.meta.url).pathname;
let model: ScriptedModelServer;
let database: string;
const children: ChildProcess[] = [];

before(async () => {
  model = await startScriptedModelServer({ handler: lookupThenAnswer() });
  database = join(await mkdtemp(join(tmpdir(), 'toolbus-kill-')), 'toolbus.db');
});
after(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await model.close();
});

async function startProcess(
  toolDelayMs: number,
  options: { readonly model?: ScriptedModelServer; readonly packetFlushMs?: number } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--conditions=development', fixture], {
    env: {
      PATH: process.env.PATH ?? '',
      TOOLBUS_TEST_DB: database,
      TOOLBUS_TEST_MODEL: `openai-compatible:${(options.model ?? model).url}/v1#scripted`,
      TOOLBUS_TEST_TOOL_DELAY_MS: String(toolDelayMs),
      TOOLBUS_TEST_PACKET_FLUSH_MS: String(options.packetFlushMs ?? 0),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening (\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
  });
  return { child, url };
}

/** Creates a chat over the API; resolves with its id. */
async function createChat(baseUrl: string): Promise<{ id: string }> {
  const response = await fetch(`${baseUrl}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return (await response.json()) as { id: string };
}

/** Starts a turn in `chatId` with `content`; the response streams its packets. */
function sendMessage(baseUrl: string, chatId: string, content: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/chats/${chatId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
  });
}

/**
 * The next turn in the chat, on the restarted server over the same history, finishes (the model checks that every
 * call has its result); then that server stops.
 */
async function nextTurnFinishesThenStop(second: { child: ChildProcess; url: string }, chatId: string) {
  const next = await sendMessage(second.url, chatId, 'And exchanges?');
  const packets = (await readSse(next)).map((event) => JSON.parse(event.data) as WirePacket);
  assert.deepEqual(packets.at(-1)?.obj, { type: 'stop', reason: 'finished' });
  assert.deepEqual(model.failures, []);
  second.child.kill('SIGTERM');
  await new Promise((resolve) => second.child.once('exit', resolve));
}

interface WirePacket {
  sequence: number;
  placement: { turn: number; tab: number };
  obj: { type: string; [key: string]: unknown };
}

test('kill -9 mid-tool, then restart: the turn is closed with a stop packet and a reason; history stays consistent', async () => {
  const first = await startProcess(60_000);
  const chat = await createChat(first.url);
  const response = await sendMessage(first.url, chat.id, 'How long do refunds take?');
  const seen = (await readSse(response, (event) => !event.data.includes('"tool-start"'))).map(
    (event) => JSON.parse(event.data) as WirePacket,
  );
  assert.equal(seen.at(-1)?.obj.type, 'tool-start');
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));

  const second = await startProcess(0);
  const detail = (await (await fetch(`${second.url}/v1/chats/${chat.id}`)).json()) as {
    turns: { status: string; endReason: string }[];
    messages: { message: { role: string; content: string; toolCalls?: unknown[] } }[];
  };
  assert.equal(detail.turns[0]?.status, 'interrupted');
  assert.match(detail.turns[0]?.endReason ?? '', /server stopped while this turn was running/);
  assert.deepEqual(
    detail.messages.map((stored) => stored.message.role),
    ['user', 'assistant'],
  );
  assert.equal(detail.messages[0]?.message.content, 'How long do refunds take?');
  assert.match(detail.messages[1]?.message.content ?? '', /interrupted/);

  // The stream: everything seen before the kill, then the open tool closed, then the stop packet.
  const replay = (await readSse(await fetch(`${second.url}/v1/chats/${chat.id}/turns/0/stream`))).map(
    (event) => JSON.parse(event.data) as WirePacket,
  );
  assert.deepEqual(replay.slice(0, seen.length), seen);
  const closing = replay.slice(seen.length).map((packet) => packet.obj);
  const toolStart = seen.at(-1) as WirePacket;
  assert.deepEqual(
    closing.map((obj) => [obj.type, obj.code ?? obj.reason ?? obj.status]),
    [
      ['error', 'turn_interrupted'],
      ['tool-end', 'aborted'],
      ['section-end', undefined],
      ['stop', 'interrupted'],
    ],
  );
  assert.deepEqual(replay[seen.length]?.placement, toolStart.placement);

  // The next turn runs on the restarted server over the same history.
  await nextTurnFinishesThenStop(second, chat.id);
});

for (const packetFlushMs of [0, 20]) {
  test(`kill -9 while the answer streams (packets stored every ${packetFlushMs || 'pass'}${packetFlushMs ? ' ms' : ''}): no id a client saw live names another packet after the restart`, async () => {
    const streaming = await startScriptedModelServer({
      handler: lookupThenAnswer({ answer: 'Refunds take fourteen days. '.repeat(100), chunkDelayMs: 2 }),
    });
    try {
      const first = await startProcess(0, { model: streaming, packetFlushMs });
      const chat = await createChat(first.url);
      const response = await sendMessage(first.url, chat.id, 'How long do refunds take?');
      // Every event the client got live, until the process is gone: killed once some answer deltas arrived.
      const seen = new Map<number, string>();
      let deltas = 0;
      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      await readSse(response, (event) => {
        seen.set(Number(event.id), event.data);
        if (event.data.includes('"message-delta"')) deltas += 1;
        if (deltas === 10) first.child.kill('SIGKILL');
      }).catch(() => undefined);
      await exited;
      assert.ok(deltas >= 10, 'the kill came while the answer streamed');

      const second = await startProcess(0, { model: streaming, packetFlushMs });
      const replay = await readSse(await fetch(`${second.url}/v1/chats/${chat.id}/turns/0/stream`));
      assert.deepEqual(
        replay.map((event) => Number(event.id)),
        replay.map((_event, index) => index + 1),
        'one packet per sequence, without a gap',
      );
      // Each id seen live is, after the restart, the very packet the client saw: none was lost and reused.
      for (const [id, data] of seen) assert.equal(replay[id - 1]?.data, data, `packet ${id}`);
      const closing = replay
        .slice(Math.max(...seen.keys()))
        .map((event) => JSON.parse(event.data) as WirePacket);
      assert.deepEqual(closing.at(-1)?.obj, { type: 'stop', reason: 'interrupted' });
      assert.equal(
        closing.filter((packet) => packet.obj.type === 'stop').length,
        1,
        'the only stop packet is the restart one',
      );
      // The history keeps what was answered before the kill, the tool call with its result, and the note.
      const detail = (await (await fetch(`${second.url}/v1/chats/${chat.id}`)).json()) as {
        turns: { status: string }[];
        messages: { message: { role: string; content: string } }[];
      };
      assert.equal(detail.turns[0]?.status, 'interrupted');
      const answer = detail.messages.at(-1)?.message.content ?? '';
      const liveAnswer = [...seen.values()]
        .map((data) => JSON.parse(data) as WirePacket)
        .filter((packet) => packet.obj.type === 'message-delta' && packet.placement.turn > 0)
        .map((packet) => packet.obj.content as string)
        .join('');
      assert.ok(liveAnswer.length > 0);
      assert.ok(answer.includes(liveAnswer.trim()), 'the stored answer holds what the client saw');
      assert.match(answer, /\[This answer was interrupted: /);
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    } finally {
      await streaming.close();
    }
  });
}

for (const [signal, resumeBy] of [
  ['SIGTERM', 'Last-Event-ID'],
  ['SIGINT', '?after='],
] as const) {
  test(`${signal} mid-tool while a client resumed by ${resumeBy}: the process exits, the turn is closed as interrupted`, async () => {
    const first = await startProcess(60_000);
    const chat = await createChat(first.url);
    // The client disconnects in the middle of the tool call, then resumes from the last event it got.
    const response = await sendMessage(first.url, chat.id, 'How long do refunds take?');
    const seen = await readSse(response, (event) => !event.data.includes('"tool-start"'));
    const lastId = seen.at(-1)?.id ?? '';
    const streamPath = `/v1/chats/${chat.id}/turns/0/stream`;
    const resumed = await fetch(
      resumeBy === 'Last-Event-ID'
        ? `${first.url}${streamPath}`
        : `${first.url}${streamPath}?after=${lastId}`,
      resumeBy === 'Last-Event-ID' ? { headers: { 'last-event-id': lastId } } : {},
    );
    assert.equal(resumed.status, 200);
    const reading = readSse(resumed);
    const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
    first.child.kill(signal);
    assert.equal(await exited, 0, 'the process exits by itself, cleanly');
    // What the resumed client got: the rest, from the next sequence on, ending with the shutdown's closing packets.
    const rest = (await reading).map((event) => JSON.parse(event.data) as WirePacket);
    assert.equal(rest[0]?.sequence, Number(lastId) + 1, 'nothing lost, nothing repeated');
    const toolStart = JSON.parse(seen.at(-1)?.data ?? '{}') as WirePacket;
    assert.deepEqual(
      rest.map((packet) => [packet.obj.type, packet.obj.code ?? packet.obj.reason ?? packet.obj.status]),
      [
        ['tool-end', 'aborted'],
        ['section-end', undefined],
        ['stop', 'interrupted'],
      ],
    );
    assert.deepEqual(rest[0]?.placement, toolStart.placement);

    // After a restart: the turn is interrupted with the shutdown's reason, the call has a result, and the next
    // turn runs over that history (the scripted model checks call/result pairing).
    const second = await startProcess(0);
    const detail = (await (await fetch(`${second.url}/v1/chats/${chat.id}`)).json()) as {
      turns: { status: string; endReason: string }[];
      messages: {
        message: { role: string; content: string; toolCalls?: { id: string }[]; toolCallId?: string };
      }[];
    };
    assert.equal(detail.turns[0]?.status, 'interrupted');
    assert.match(detail.turns[0]?.endReason ?? '', /server was shut down while this turn was running/);
    const messages = detail.messages.map((stored) => stored.message);
    assert.deepEqual(
      messages.map((message) => message.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.equal(messages[2]?.toolCallId, messages[1]?.toolCalls?.[0]?.id);
    assert.match(messages[3]?.content ?? '', /\[This answer was interrupted: The server was shut down/);
    const replay = (await readSse(await fetch(`${second.url}${streamPath}?after=${lastId}`))).map(
      (event) => JSON.parse(event.data) as WirePacket,
    );
    assert.deepEqual(replay, rest, 'a later resume reads the same closing packets');
    await nextTurnFinishesThenStop(second, chat.id);
  });
}
