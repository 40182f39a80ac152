import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredPacket } from '@toolbus/storage';
import { packetStreamResponse } from './packet-stream-response.ts';

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
