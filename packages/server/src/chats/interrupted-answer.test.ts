// What the history keeps of a turn a dead process left running: the answer as its readers saw it, read from the
// stored packets by the one fold (spec's foldAnswer), so text retracted as a tool call is not kept.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Packet } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { recordDeadTurn } from '../__fixtures__/closers-at-once.ts';
import { openTestStorageWithUser } from '../__fixtures__/test-server.ts';
import { silentLogger } from '../server-logger.ts';
import { TurnRunner } from './turn-runner.ts';

let storage: Storage;
let userId: string;
before(async () => {
  ({ storage, userId } = await openTestStorageWithUser());
});
after(() => storage.close());

const at = (turn: number, obj: Packet['obj']): Packet => ({
  placement: { turn, tab: 0 },
  obj,
  modelIndex: 0,
});

/** A turn a dead process left running: started on a new chat with `question`, `packets` stored, never ended. */
async function deadTurn(question: string, packets: Packet[]): Promise<{ chatId: string; turn: number }> {
  const chat = await storage.chats.create({ userId });
  const turn = await recordDeadTurn(storage, chat.id, { question, packets });
  return { chatId: chat.id, turn: turn.index };
}

/** A restarted process (it holds no live turn, so a stored running one is a dead process's) closes the turn. */
async function restartAndClose(): Promise<void> {
  const restarted = new TurnRunner({ storage, logger: silentLogger });
  assert.equal(await restarted.closeInterruptedTurns('The server restarted.'), 1);
}

test('a turn closed after a crash keeps the answer without the text retracted as a tool call', async () => {
  // The dead process had shown a call written as text, retracted it, and started the answer in the next cycle.
  const { chatId } = await deadTurn('Refunds?', [
    at(0, { type: 'message-start' }),
    at(0, { type: 'message-delta', content: 'Let me check. <tool_call>{"name": "lookup"}</tool_call>' }),
    at(0, { type: 'message-replace', content: 'Let me check.' }),
    at(1, { type: 'message-start' }),
    at(1, { type: 'message-delta', content: 'Refunds take fourteen days.' }),
  ]);
  await restartAndClose();
  const history = (await storage.chats.listMessages(chatId)).map((stored) => stored.message);
  const answer = history.at(-1);
  assert.equal(answer?.role, 'assistant');
  assert.doesNotMatch(answer?.content ?? '', /tool_call|lookup/, 'the retracted call text is gone');
  assert.match(answer?.content ?? '', /^Let me check\.\n\nRefunds take fourteen days\.\n\n/);
  assert.match(answer?.content ?? '', /\[This answer was interrupted: The server restarted\.\]$/);
});

test('a turn whose process died after storing its stop, before ending the turn, is closed without a second stop', async () => {
  const { chatId, turn } = await deadTurn('Hours?', [
    at(0, { type: 'message-start' }),
    at(0, { type: 'message-delta', content: 'We open at nine.' }),
    at(0, { type: 'stop', reason: 'finished' }),
  ]);
  await restartAndClose();
  const stored = await storage.chats.listPackets({ chatId, turn });
  const stops = stored.filter((packet) => (packet.packet as Packet).obj.type === 'stop');
  assert.deepEqual(
    stops.map((packet) => (packet.packet as Packet).obj),
    [{ type: 'stop', reason: 'finished' }],
    'the stored stop is the only one',
  );
  assert.equal((stored.at(-1)?.packet as Packet | undefined)?.obj.type, 'stop', 'the stop is still last');
  assert.equal((await storage.chats.getTurn({ chatId, turn }))?.status, 'interrupted');
});
