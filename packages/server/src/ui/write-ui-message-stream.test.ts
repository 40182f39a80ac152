import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Packet, Placement } from '@toolbus/spec';
import type { StoredPacket } from '@toolbus/storage';
import { outpaceReader, readFromNode } from '../__fixtures__/read-from-node.ts';
import { LiveTurn } from '../chats/live-turn.ts';
import { toUiMessageChunks } from './ui-message-chunks.ts';
import { uiMessageStreamResponse } from './ui-message-stream-response.ts';
import { writeUiMessageStream } from './write-ui-message-stream.ts';

const top: Placement = { turn: 0, tab: 0 };
const tool: Placement = { turn: 1, tab: 0 };
const answer: Placement = { turn: 2, tab: 0 };

/** A turn with reasoning, a tool call, an error it went on after, and an answer in several deltas. */
function turnPackets(deltas: number): StoredPacket[] {
  const objs: [Placement, Packet['obj']][] = [
    [top, { type: 'reasoning-delta', reasoning: 'Look it up.' }],
    [top, { type: 'reasoning-end' }],
    [
      tool,
      { type: 'tool-start', toolCallId: 'c1', toolName: 'lookup', displayName: 'Lookup', arguments: {} },
    ],
    [
      tool,
      {
        type: 'tool-end',
        toolCallId: 'c1',
        toolName: 'lookup',
        status: 'success',
        result: 'found',
        durationMs: 3,
      },
    ],
    [tool, { type: 'section-end' }],
    [top, { type: 'error', code: 'model_slow', message: 'The model was slow.' }],
    [answer, { type: 'message-start', finalDocuments: [] }],
    ...Array.from({ length: deltas }, (_unused, index): [Placement, Packet['obj']] => [
      answer,
      { type: 'message-delta', content: `word ${index} ` },
    ]),
    [answer, { type: 'section-end' }],
    [top, { type: 'stop', reason: 'finished' }],
  ];
  return objs.map(([placement, obj], index) => ({
    sequence: index + 1,
    packet: { placement, modelIndex: 0, obj } satisfies Packet,
  }));
}

async function* replayOf(packets: readonly StoredPacket[]): AsyncGenerator<StoredPacket> {
  yield* packets;
}

test('a live turn written from its publishes sends the bytes of the replayed stream', async () => {
  const packets = turnPackets(20);
  const open = () => toUiMessageChunks(replayOf(packets), 'c:0');
  const expected = await uiMessageStreamResponse({ open }).text();
  assert.match(expected, /"type":"data-toolbus-error"/);
  assert.ok(expected.endsWith('data: [DONE]\n\n'));
  // The same turn read by the writer's own reader (a turn of another process).
  assert.equal(await readFromNode((outgoing) => writeUiMessageStream({ outgoing, open })), expected);
  // Live: some packets published before the client came, the rest in publishes of one, several and the stop.
  const live = new LiveTurn({ chatId: 'c', index: 0, userId: 'u' });
  live.publish(packets.slice(0, 4));
  const streamed = readFromNode((outgoing) => {
    writeUiMessageStream({ outgoing, open, live: { turn: live, messageId: 'c:0' } });
    live.publish(packets.slice(4, 5));
    let next = 5;
    const timer = setInterval(() => {
      const size = next % 3 === 0 ? 1 : 4;
      live.publish(packets.slice(next, next + size));
      next += size;
      if (next >= packets.length) {
        clearInterval(timer);
        live.finish();
      }
    }, 2);
  });
  assert.equal(await streamed, expected);
});

test('a live turn outpacing a paused reader: the writer waits for drain, then sends every delta once, in order', async () => {
  const packets = turnPackets(3000).map((stored) => {
    const obj = (stored.packet as Packet).obj;
    return obj.type === 'message-delta'
      ? { ...stored, packet: { ...(stored.packet as Packet), obj: { ...obj, content: 'x'.repeat(1000) } } }
      : stored;
  });
  const live = new LiveTurn({ chatId: 'c', index: 0, userId: 'u' });
  let refused = false;
  const text = await readFromNode((outgoing) => {
    writeUiMessageStream({
      outgoing,
      open: () => undefined as never,
      live: { turn: live, messageId: 'c:0' },
    });
    refused = outpaceReader(outgoing, live, packets);
  }, 200);
  assert.equal(refused, true, 'the socket never refused a write, so this test did not test waiting');
  const expected = await uiMessageStreamResponse({
    open: () => toUiMessageChunks(replayOf(packets), 'c:0'),
  }).text();
  assert.equal(text.length, expected.length);
  assert.equal(text, expected);
});

test('a turn that ends without a stop still ends the stream, with the error it held', async () => {
  const packets = turnPackets(2).slice(0, 6);
  const live = new LiveTurn({ chatId: 'c', index: 0, userId: 'u' });
  const text = readFromNode((outgoing) => {
    writeUiMessageStream({
      outgoing,
      open: () => undefined as never,
      live: { turn: live, messageId: 'c:0' },
    });
    live.publish(packets);
    setTimeout(() => live.finish(), 5);
  });
  const expected = await uiMessageStreamResponse({
    open: () => toUiMessageChunks(replayOf(packets), 'c:0'),
  }).text();
  assert.equal(await text, expected);
  assert.match(expected, /data-toolbus-error[^\n]*\n\ndata: \[DONE\]\n\n$/);
});
