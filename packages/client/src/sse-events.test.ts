import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sseEvents } from './sse-events.ts';

function bodyOf(chunks: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: readonly string[]) {
  const events = [];
  for await (const event of sseEvents(bodyOf(chunks))) events.push(event);
  return events;
}

test('events split anywhere across chunks, with CRLF, CR or LF line ends, comments and multi-line data', async () => {
  const text =
    ': heartbeat\n\nid: 1\ndata: {"a":1}\n\nid: 2\r\nevent: error\r\ndata: line one\r\ndata: line two\r\n\r\nid: 3\rdata: x\r\r';
  const expected = [
    { id: '1', event: undefined, data: '{"a":1}' },
    { id: '2', event: 'error', data: 'line one\nline two' },
    { id: '3', event: undefined, data: 'x' },
  ];
  assert.deepEqual(await collect([text]), expected);
  for (let cut = 1; cut < text.length; cut += 1) {
    assert.deepEqual(await collect([text.slice(0, cut), text.slice(cut)]), expected, `cut at ${cut}`);
  }
});

test('a large replay in one chunk: every event, in order', async () => {
  const lines = Array.from(
    { length: 20_000 },
    (_, index) => `id: ${index + 1}\ndata: {"sequence":${index + 1}}\n\n`,
  );
  const events = await collect([lines.join('')]);
  assert.equal(events.length, 20_000);
  assert.equal(events.at(-1)?.id, '20000');
});
