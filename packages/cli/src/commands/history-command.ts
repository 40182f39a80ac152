import { ToolbusError } from '@toolbus/spec';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { UsageError } from '../usage-error.ts';
import type { CliCommand } from './cli-command.ts';

const usage = `Usage: toolbus history [<chat id>] [--json]

Without an id: your chats, most recent first (go on with one: toolbus chat --chat <id>, or --continue for the
latest). With an id: that chat's messages, and how each turn ended (completed, stopped, failed, interrupted).
`;

/** `toolbus history`: the kept chats, and one chat's messages. */
export const historyCommand: CliCommand = {
  name: 'history',
  synopsis: 'history [<chat id>]      kept chats (toolbus chat --continue)',
  usage,
  async run(argv: readonly string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      argv,
      usage,
      options: { json: { type: 'boolean', default: false } },
    });
    if (positionals.length > 1) throw new UsageError({ message: 'give at most one chat id.', usage });
    const workspace = await openWorkspace(loadCliConfig({ env: io.env }));
    try {
      const { storage, user } = workspace;
      const [id] = positionals;
      if (id === undefined) {
        const chats = await storage.chats.listForUser(user.id);
        if (values.json) {
          io.stdout.write(`${JSON.stringify(chats)}\n`);
          return EXIT_CODES.ok;
        }
        if (chats.length === 0) io.stdout.write('No chats yet.\n');
        for (const chat of chats) {
          const turns = await storage.chats.listTurns(chat.id);
          io.stdout.write(`${chat.id}  ${chat.updatedAt}  ${turns.length} turn(s)  ${chat.title}\n`);
        }
        return EXIT_CODES.ok;
      }
      const chat = await storage.chats.get(id);
      if (chat === undefined || chat.userId !== user.id) {
        throw new ToolbusError({
          code: 'chat_not_found',
          message: `No chat ${id}; \`toolbus history\` lists them.`,
        });
      }
      const messages = await storage.chats.listMessages(chat.id);
      const turns = await storage.chats.listTurns(chat.id);
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ chat, turns, messages })}\n`);
        return EXIT_CODES.ok;
      }
      io.stdout.write(`${chat.title}  (${chat.id})\n`);
      for (const turn of turns) {
        io.stdout.write(
          `\n— turn ${turn.index + 1}: ${turn.status}${turn.endReason ? ` (${turn.endReason})` : ''}\n`,
        );
        for (const { message } of messages.filter((stored) => stored.turn === turn.index)) {
          if (message.role === 'user') io.stdout.write(`you: ${message.content}\n`);
          else if (message.role === 'assistant' && message.toolCalls?.length) {
            io.stdout.write(`  (called ${message.toolCalls.map((call) => call.name).join(', ')})\n`);
          } else if (message.role === 'assistant') io.stdout.write(`toolbus: ${message.content}\n`);
        }
      }
      return EXIT_CODES.ok;
    } finally {
      await workspace.close();
    }
  },
};
