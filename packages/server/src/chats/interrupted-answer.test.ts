// What the history keeps of a turn a dead process left running: the answer as its readers saw it, read from the
// stored packets by the one fold (spec's foldAnswer), so text retracted as a tool call is not kept.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Packet } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { silentLogger } from '../server-logger.ts';
import { TurnRunner } from './turn-runner.ts';

let storage: Storage;
let userId: string;
before(async () => {
  ({ storage } = await openTestStorage());
  userId = (await storage.users.create({ email: 'ada@example.com' })).id;
});
after(() => storage.close());

const at = (turn: number, obj: Packet['obj']): Packet => ({
  placement: { turn, tab: 0 },
  obj,
  modelIndex: 0,
});

test('a turn closed after a crash keeps the answer without the text retracted as a tool call', async () => {
  const chat = await storage.chats.create({ userId });
  const turn = await storage.chats.startTurn({
    chatId: chat.id,
    input: [{ role: 'user', content: 'Refunds?' }],
  });
  // The dead process had shown a call written as text, retracted it, and started the answer in the next cycle.
  await storage.chats.appendPackets({
    chatId: chat.id,
    turn: turn.index,
    packets: [
      at(0, { type: 'message-start' }),
      at(0, { type: 'message-delta', content: 'Let me check. <tool_call>{"name": "lookup"}</tool_call>' }),
      at(0, { type: 'message-replace', content: 'Let me check.' }),
      at(1, { type: 'message-start' }),
      at(1, { type: 'message-delta', content: 'Refunds take fourteen days.' }),
    ],
  });
  // A restarted process: it holds no live turn, so the stored one is a dead process's.
  const restarted = new TurnRunner({ storage, logger: silentLogger });
  assert.equal(await restarted.closeInterruptedTurns('The server restarted.'), 1);
  const history = (await storage.chats.listMessages(chat.id)).map((stored) => stored.message);
  const answer = history.at(-1);
  assert.equal(answer?.role, 'assistant');
  assert.doesNotMatch(answer?.content ?? '', /tool_call|lookup/, 'the retracted call text is gone');
  assert.match(answer?.content ?? '', /^Let me check\.\n\nRefunds take fourteen days\.\n\n/);
  assert.match(answer?.content ?? '', /\[This answer was interrupted: The server restarted\.\]$/);
});

test('a turn whose process died after storing its stop, before ending the turn, is closed without a second stop', async () => {
  const chat = await storage.chats.create({ userId });
  const turn = await storage.chats.startTurn({
    chatId: chat.id,
    input: [{ role: 'user', content: 'Hours?' }],
  });
  await storage.chats.appendPackets({
    chatId: chat.id,
    turn: turn.index,
    packets: [
      at(0, { type: 'message-start' }),
      at(0, { type: 'message-delta', content: 'We open at nine.' }),
      at(0, { type: 'stop', reason: 'finished' }),
    ],
  });
  const restarted = new TurnRunner({ storage, logger: silentLogger });
  assert.equal(await restarted.closeInterruptedTurns('The server restarted.'), 1);
  const stored = await storage.chats.listPackets({ chatId: chat.id, turn: turn.index });
  const stops = stored.filter((packet) => (packet.packet as Packet).obj.type === 'stop');
  assert.deepEqual(
    stops.map((packet) => (packet.packet as Packet).obj),
    [{ type: 'stop', reason: 'finished' }],
    'the stored stop is the only one',
  );
  assert.equal((stored.at(-1)?.packet as Packet | undefined)?.obj.type, 'stop', 'the stop is still last');
  assert.equal((await storage.chats.getTurn({ chatId: chat.id, turn: turn.index }))?.status, 'interrupted');
});
