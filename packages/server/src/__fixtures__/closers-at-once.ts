// Two closers of one dead runner's turn at the same moment (two replicas, or a sweep and a restarted process): the
// turn they find, the storage that makes both read it before either closes it, and what must then be stored once.
import assert from 'node:assert/strict';
import { foldAnswer, type Packet } from '@toolbus/spec';
import type { ChatTurnRecord, Storage, StoredPacket } from '@toolbus/storage';

/** The answer the dead runner had streamed before it died, in the middle of a tool call. */
export const deadTurnAnswer = 'Refunds take fourteen days.';

const at = (obj: Packet['obj']): Packet => ({ placement: { turn: 0, tab: 0 }, obj, modelIndex: 0 });

/**
 * Records, in a chat, a turn as a runner that died left it: running, never ended, with `packets` stored. By
 * default asked `Refunds?`, its answer begun and a tool call open.
 */
export async function recordDeadTurn(
  storage: Storage,
  chatId: string,
  options: { readonly question?: string; readonly packets?: Packet[] } = {},
): Promise<ChatTurnRecord> {
  const question = options.question ?? 'Refunds?';
  const turn = await storage.chats.startTurn({ chatId, input: [{ role: 'user', content: question }] });
  const packets = options.packets ?? [
    at({ type: 'message-start' }),
    at({ type: 'message-delta', content: deadTurnAnswer }),
    at({
      type: 'tool-start',
      toolCallId: 'c1',
      toolName: 'lookup',
      displayName: 'Lookup',
      arguments: { query: 'refunds' },
    }),
  ];
  await storage.chats.appendPackets({ chatId, turn: turn.index, packets });
  return turn;
}

/**
 * Wraps each closer's storage so that its first read of a turn's packets returns only once every closer has read
 * too: all of them then decide the closing packets from the same stored turn, as closers that start together do.
 */
export function readingTogether(closers: number): (storage: Storage) => Storage {
  let arrived = 0;
  let release: () => void = () => {};
  const everyone = new Promise<void>((resolve) => {
    release = resolve;
  });
  return (storage) => {
    let waited = false;
    const listPackets: Storage['chats']['listPackets'] = async (options) => {
      const packets = await storage.chats.listPackets(options);
      if (!waited) {
        waited = true;
        arrived += 1;
        if (arrived === closers) release();
        await everyone;
      }
      return packets;
    };
    const chats = new Proxy(storage.chats, {
      get: (target, key) => (key === 'listPackets' ? listPackets : Reflect.get(target, key)),
    });
    return new Proxy(storage, { get: (target, key) => (key === 'chats' ? chats : Reflect.get(target, key)) });
  };
}

/** Packets as a reader got them (stored, replayed, or served as SSE). */
export function objectsOf(packets: readonly StoredPacket[]): Packet['obj'][] {
  return packets.map((packet) => (packet.packet as Packet).obj);
}

/**
 * The closed turn's packets as a reader gets them: in order without gaps, the open call's error, end and section
 * end once each, one `stop` last, and the answer once.
 */
export function assertClosedOnce(packets: readonly StoredPacket[]): void {
  assert.deepEqual(
    packets.map((packet) => packet.sequence),
    packets.map((_, index) => index + 1),
    'every packet once, in order',
  );
  const types = objectsOf(packets).map((obj) => obj.type);
  assert.deepEqual(types, [
    'message-start',
    'message-delta',
    'tool-start',
    'error',
    'tool-end',
    'section-end',
    'stop',
  ]);
  assert.deepEqual(foldAnswer(packets.map((packet) => packet.packet as Packet)).messages, [deadTurnAnswer]);
}

/** The closed turn's history: the question, then the answer so far once, with why it stopped. */
export async function assertHistoryOnce(storage: Storage, chatId: string, reason: string): Promise<void> {
  const history = (await storage.chats.listMessages(chatId)).map((stored) => stored.message);
  assert.deepEqual(history, [
    { role: 'user', content: 'Refunds?' },
    { role: 'assistant', content: `${deadTurnAnswer}\n\n[This answer was interrupted: ${reason}]` },
  ]);
}
