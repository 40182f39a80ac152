import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredPacket } from '@toolbus/storage';
import { outpaceReader, readFromNode } from '../__fixtures__/read-from-node.ts';
import { LiveTurn } from './live-turn.ts';
import { packetStreamResponse, writePacketStream } from './packet-stream-response.ts';

async function* slowPackets(delayMs: number): AsyncGenerator<StoredPacket> {
  yield { sequence: 1, packet: { obj: { type: 'message-start' } } };
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  yield { sequence: 2, packet: { obj: { type: 'stop' } } };
}

test('a silent stream gets heartbeats, then the next packet; packets are framed with their sequence', async () => {
  const response = packetStreamResponse({ format: 'sse', open: () => slowPackets(400), heartbeatMs: 100 });
  const text = await response.text();
  const first = text.indexOf('id: 1\ndata: {"sequence":1,"obj":{"type":"message-start"}}\n\n');
  const second = text.indexOf('id: 2\ndata: {"sequence":2,"obj":{"type":"stop"}}\n\n');
  const beat = text.indexOf(': heartbeat\n\n');
  assert.ok(first === 0 && second > first, text);
  assert.ok(beat > first && beat < second, text);
});

test('a busy stream gets no heartbeat; NDJSON frames one packet per line', async () => {
  async function* quick(): AsyncGenerator<StoredPacket> {
    for (let sequence = 1; sequence <= 3; sequence += 1) yield { sequence, packet: { n: sequence } };
  }
  const text = await packetStreamResponse({ format: 'ndjson', open: quick, heartbeatMs: 50 }).text();
  assert.equal(text, '{"sequence":1,"n":1}\n{"sequence":2,"n":2}\n{"sequence":3,"n":3}\n');
});

test('cancelling the body aborts the reader and ends the packet iterator', async () => {
  let signal: AbortSignal | undefined;
  let ended = false;
  async function* endless(): AsyncGenerator<StoredPacket> {
    try {
      for (let sequence = 1; ; sequence += 1) {
        yield { sequence, packet: {} };
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      ended = true;
    }
  }
  const response = packetStreamResponse({
    format: 'sse',
    open: (given) => {
      signal = given;
      return endless();
    },
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  await reader.cancel();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(signal?.aborted, true);
  assert.equal(ended, true);
});

const packetsOf = (count: number, size: number): StoredPacket[] =>
  Array.from({ length: count }, (_unused, index) => ({
    sequence: index + 1,
    packet: { placement: { turn: 0, tab: 0 }, obj: { type: 'message-delta', content: 'x'.repeat(size) } },
  }));

test('the Node writer sends the bytes of the web response, for a live turn and for a replayed one', async () => {
  const packets = [{ sequence: 1, packet: {} }, ...packetsOf(5, 3).slice(1)];
  for (const format of ['sse', 'ndjson'] as const) {
    async function* replay(): AsyncGenerator<StoredPacket> {
      yield* packets.slice(2);
    }
    const expected = await packetStreamResponse({ format, open: replay }).text();
    const replayed = await readFromNode((outgoing) =>
      writePacketStream({ outgoing, format, after: 2, live: undefined, open: replay }),
    );
    assert.equal(replayed, expected);
    const live = new LiveTurn({ chatId: 'c', index: 0, userId: 'u' });
    live.publish(packets.slice(0, 3));
    const streamed = readFromNode((outgoing) => {
      writePacketStream({ outgoing, format, after: 2, live, open: replay });
      live.publish(packets.slice(3, 4));
      setTimeout(() => {
        live.publish(packets.slice(4));
        live.finish();
      }, 20);
    });
    assert.equal(await streamed, expected);
  }
});

test('a live turn outpacing a paused reader: the writer waits for drain, then sends every packet once, in order', async () => {
  const count = 3000;
  const packets = packetsOf(count, 1000);
  const live = new LiveTurn({ chatId: 'c', index: 0, userId: 'u' });
  let refused = false;
  const text = await readFromNode((outgoing) => {
    writePacketStream({ outgoing, format: 'sse', after: 0, live, open: () => undefined as never });
    // Three megabytes published at once, a packet at a time: more than a socket takes before the reader reads.
    refused = outpaceReader(outgoing, live, packets);
  }, 200);
  assert.equal(refused, true, 'the socket never refused a write, so this test did not test waiting');
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
  assert.deepEqual(
    ids,
    packets.map((packet) => packet.sequence),
  );
});
