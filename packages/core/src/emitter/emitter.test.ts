import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Packet } from '@toolbus/spec';
import { Emitter } from './emitter.ts';
import { createFencedToolEmitter } from './fenced-tool-emitter.ts';

test('the emitter stamps its model index and delivers packets in order as an async iterable', async () => {
  const emitter = new Emitter({ modelIndex: 2 });
  const received: Packet[] = [];
  const reading = (async () => {
    for await (const packet of emitter) received.push(packet);
  })();
  emitter.emitAt({ turn: 0, tab: 0 }, { type: 'message-start' });
  await new Promise((resolve) => setTimeout(resolve, 1));
  emitter.emitAt({ turn: 0, tab: 0 }, { type: 'message-delta', content: 'hi' });
  emitter.close();
  emitter.emitAt({ turn: 0, tab: 0 }, { type: 'message-delta', content: 'after close' });
  await reading;
  assert.deepEqual(
    received.map((packet) => [packet.modelIndex, packet.obj.type]),
    [
      [2, 'message-start'],
      [2, 'message-delta'],
    ],
  );
});

test('consume hands packets over as they are emitted, those emitted before first, and resolves at close', async () => {
  const emitter = new Emitter({ modelIndex: 1 });
  const received: string[] = [];
  emitter.emitAt({ turn: 0, tab: 0 }, { type: 'message-start' });
  let ended = false;
  const consuming = emitter
    .consume((packet) => received.push(packet.obj.type))
    .then(() => {
      ended = true;
    });
  assert.deepEqual(received, ['message-start']);
  emitter.emitAt({ turn: 0, tab: 0 }, { type: 'message-delta', content: 'hi' });
  // Synchronously: no promise between the emit and the consumer.
  assert.deepEqual(received, ['message-start', 'message-delta']);
  await Promise.resolve();
  assert.equal(ended, false);
  emitter.close();
  emitter.emitAt({ turn: 0, tab: 0 }, { type: 'heartbeat' });
  await consuming;
  assert.equal(ended, true);
  assert.deepEqual(received, ['message-start', 'message-delta']);
  assert.throws(() => emitter[Symbol.asyncIterator](), /one consumer/);
});

test('consume on an emitter already closed hands over what was buffered and resolves', async () => {
  const emitter = new Emitter();
  emitter.emitAt({ turn: 0, tab: 0 }, { type: 'message-start' });
  emitter.close();
  const received: string[] = [];
  await emitter.consume((packet) => received.push(packet.obj.type));
  assert.deepEqual(received, ['message-start']);
});

test('a fenced tool emitter and everything nested from it drop packets after fence()', () => {
  const emitted: string[] = [];
  const sink = { emitAt: (_placement: unknown, obj: { type: string }) => emitted.push(obj.type) };
  const emitter = createFencedToolEmitter(sink, { turn: 1, tab: 2 });
  const nested = emitter.nested({ turn: 0, tab: 1 });
  assert.deepEqual(nested.placement, { turn: 1, tab: 2, path: [{ turn: 0, tab: 1 }] });
  nested.emit({ type: 'reasoning-start' });
  emitter.emitAt({ turn: 1, tab: 3 }, { type: 'heartbeat' }); // another tab's section: refused
  emitter.emitAt({ turn: 1, tab: 2, path: [{ turn: 4, tab: 0 }] }, { type: 'section-end' });
  emitter.fence();
  emitter.emit({ type: 'heartbeat' });
  nested.emit({ type: 'heartbeat' });
  assert.equal(nested.closed, true);
  assert.deepEqual(emitted, ['reasoning-start', 'section-end']);
});
