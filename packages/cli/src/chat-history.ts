import type { ChatMessage, Packet } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Chat, Storage } from '@toolbus/storage';
import type { CliTurnOutcome } from './run-cli-turn.ts';

/** A chat of the CLI's user kept in storage: each turn is recorded with its messages and packets. */
export interface KeptChat {
  readonly chat: Chat;
  /** The conversation so far (earlier turns), without the system prompt. */
  readonly messages: readonly ChatMessage[];
  /**
   * Starts recording a turn (stored as `running`, so a process killed mid-turn leaves a trace); `finish` stores its
   * status, packets and messages (the history in one transaction).
   */
  startTurn(question: string): Promise<{ finish(outcome: CliTurnOutcome): Promise<void> }>;
}

/**
 * Opens the chat to keep: a new one, or with `continueChat` the given id (`true`: the most recent chat). A turn
 * left `running` by a process that died is closed as `interrupted` first, so the chat can go on.
 */
export async function openKeptChat(input: {
  readonly storage: Storage;
  readonly userId: string;
  readonly personaId: string;
  readonly continueChat: string | true | undefined;
}): Promise<KeptChat> {
  const { storage } = input;
  let chat: Chat | undefined;
  if (input.continueChat === true) {
    chat = (await storage.chats.listForUser(input.userId))[0];
    if (chat === undefined)
      throw new Error('There is no earlier chat to continue; start one with toolbus chat.');
  } else if (input.continueChat !== undefined) {
    chat = await storage.chats.get(input.continueChat);
    if (chat === undefined || chat.userId !== input.userId) {
      throw new Error(`No chat ${input.continueChat}; \`toolbus history\` lists the chats.`);
    }
  }
  if (chat === undefined)
    chat = await storage.chats.create({ userId: input.userId, personaId: input.personaId });
  for (const turn of await storage.chats.listTurns(chat.id)) {
    if (turn.status === 'running') {
      await storage.chats.finishTurn({
        chatId: chat.id,
        turn: turn.index,
        status: 'interrupted',
        reason: 'the toolbus process ended during the turn',
      });
    }
  }
  const messages = (await storage.chats.listMessages(chat.id)).map((stored) => stored.message);
  let current = chat;
  return {
    chat,
    messages,
    async startTurn(question) {
      if (current.title === 'New chat') current = await storage.chats.rename(current.id, titleOf(question));
      const turn = await storage.chats.startTurn({ chatId: current.id });
      return {
        async finish(outcome) {
          await storage.chats.appendPackets({
            chatId: current.id,
            turn: turn.index,
            packets: outcome.packets as readonly Packet[],
          });
          await storage.chats.finishTurn({
            chatId: current.id,
            turn: turn.index,
            status: outcome.status,
            ...omitUndefined({ reason: outcome.reason }),
            messages: outcome.messages,
          });
        },
      };
    },
  };
}

function titleOf(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
