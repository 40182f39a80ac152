import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { constructTools } from '@toolbus/assembly';
import {
  BUILT_IN_TOOLS,
  BUILT_IN_TOOLS_BY_NAME,
  createGuardedFetch,
  resolveLanguageModel,
  runChatTurn,
} from '@toolbus/core';
import type { ChatFile, ChatMessage, CitedDocument, Tool } from '@toolbus/spec';
import { ToolbusError } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import { renderMemoriesForPrompt, SUPPORTED_DOCUMENT_TYPES } from '@toolbus/tools';
import { builtInToolFactories } from '../built-in-tool-factories.ts';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { loadChatSkills } from '../load-skills.ts';
import { openWorkspace } from '../open-workspace.ts';
import { createTerminalApprovalAsk } from '../terminal-approval.ts';
import { TerminalRenderer } from '../terminal-renderer.ts';

export const chatUsage = `Usage: toolbus chat ["question"] [options]

Without a question on a terminal, starts an interactive chat (an empty line or Ctrl-D ends it); without a
question and with piped input, the input is the question.

Options:
  --model <model>      e.g. ollama:qwen2.5:7b, openai:gpt-4.1, anthropic:claude-sonnet-4-5,
                       openai-compatible:http://host:8000/v1#model (default: TOOLBUS_MODEL, the config file, Ollama)
  --persona <name>     a stored persona (default: "default", every built-in tool)
  --tools <names>      only these tools, comma-separated (e.g. internal_search,open_url)
  --max-cycles <n>     model steps per turn (default 6)
  --hide-reasoning     do not print the model's reasoning
  --file <path>        attach a file to the chat (read_file, run_python); repeatable
  --packets            print the packet stream as NDJSON instead of text (for programs)
`;

const systemPrompt = [
  'You are a helpful assistant with tools. Use them when they help; answer directly when they do not.',
  "When you use information from a tool's documents, cite it inline with its number in square brackets, like [1].",
  'Never invent citation numbers.',
].join(' ');

/** `toolbus chat`: one question, or an interactive chat, with the persona's tools. */
export async function runChatCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      model: { type: 'string' },
      persona: { type: 'string' },
      tools: { type: 'string' },
      'max-cycles': { type: 'string' },
      'hide-reasoning': { type: 'boolean', default: false },
      packets: { type: 'boolean', default: false },
      file: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(chatUsage);
    return 0;
  }
  const maxCycles = values['max-cycles'] === undefined ? undefined : Number(values['max-cycles']);
  if (maxCycles !== undefined && (!Number.isInteger(maxCycles) || maxCycles < 1 || maxCycles > 50)) {
    io.stderr.write('toolbus chat: --max-cycles takes a whole number from 1 to 50.\n');
    return 2;
  }
  const allowedToolIds = values.tools === undefined ? undefined : toolIdsFromNames(values.tools);
  const config = loadCliConfig({ env: io.env, modelFlag: values.model });
  const model = resolveLanguageModel(config.model.value, { env: io.env });
  const workspace = await openWorkspace(config, { persona: values.persona });
  const guardedFetch = createGuardedFetch({
    level: 'strict',
    ...(config.file.allowHosts ? { allow: config.file.allowHosts } : {}),
  });
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const chatFiles = await attachFiles({
      paths: values.file ?? [],
      storage: workspace.storage,
      userId: workspace.user.id,
      cwd: io.cwd,
    });
    const memories = await workspace.storage.memories.list(workspace.user.id);
    const skills = await loadChatSkills(config, io.env);
    cleanups.push(() => skills.close());
    const assembly = await constructTools({
      persona: workspace.persona,
      user: workspace.user,
      storage: workspace.storage,
      builtInFactories: builtInToolFactories({
        config,
        index: workspace.index,
        storage: workspace.storage,
        fetch: guardedFetch,
        userId: workspace.user.id,
        env: io.env,
        model,
        onClose: (cleanup) => cleanups.push(cleanup),
        skills,
        egressAsk: createTerminalApprovalAsk(io),
      }),
      availabilityContext: { userId: workspace.user.id, files: chatFiles },
      fetch: guardedFetch,
      ...(allowedToolIds ? { allowedToolIds } : {}),
    });
    try {
      const memoryText = memories.length ? `\n\n${renderMemoriesForPrompt(memories)}` : '';
      // Skills are only usable where the sandbox is: tell the model about them when run_python is offered.
      const skillText =
        skills.promptSection && assembly.tools.some((tool) => tool.name === 'run_python')
          ? `\n\n${skills.promptSection}`
          : '';
      const conversation: ChatMessage[] = [
        { role: 'system', content: `${systemPrompt}${memoryText}${skillText}` },
      ];
      const ask = (question: string) =>
        askOnce({
          question,
          conversation,
          tools: assembly.tools,
          model,
          io,
          values,
          maxCycles,
          files: chatFiles,
          userId: workspace.user.id,
        });
      const question = positionals.join(' ').trim();
      if (question) return await ask(question);
      if (!io.stdin) {
        io.stderr.write('toolbus chat: no question given.\n');
        return 2;
      }
      if (!io.stdin.isTTY) {
        const piped = (await readAll(io.stdin)).trim();
        if (!piped) {
          io.stderr.write('toolbus chat: no question given (stdin was empty).\n');
          return 2;
        }
        return await ask(piped);
      }
      const readline = createInterface({
        input: io.stdin,
        output: io.stdout as NodeJS.WritableStream,
        terminal: true,
      });
      let status = 0;
      try {
        io.stdout.write(
          `toolbus chat — tools: ${assembly.tools.map((tool) => tool.name).join(', ') || 'none'}. Empty line to quit.\n`,
        );
        for (;;) {
          const line = (await readline.question('\n› ').catch(() => '')).trim();
          if (!line) break;
          status = await ask(line);
        }
      } finally {
        readline.close();
      }
      return status;
    } finally {
      await assembly.close();
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    await workspace.close();
    await guardedFetch.close?.();
  }
}

/** Stores the files named by `--file` as the local user's uploads and returns them as the chat's files. */
async function attachFiles(input: {
  paths: readonly string[];
  storage: Storage;
  userId: string;
  cwd: string;
}): Promise<ChatFile[]> {
  const files: ChatFile[] = [];
  for (const path of input.paths) {
    const absolute = resolve(input.cwd, path);
    const content = await readFile(absolute).catch((error: NodeJS.ErrnoException) => {
      throw new ToolbusError({
        code: 'file_unreadable',
        message: `--file ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`,
      });
    });
    const name = basename(absolute);
    const stored = await input.storage.files.put({
      userId: input.userId,
      name,
      mediaType: mediaTypeOf(name),
      content,
    });
    files.push({
      id: stored.id,
      name: stored.name,
      mediaType: stored.mediaType,
      sizeBytes: stored.sizeBytes,
    });
  }
  return files;
}

function mediaTypeOf(name: string): string {
  return (
    SUPPORTED_DOCUMENT_TYPES.get(extname(name).toLowerCase()) ??
    (/\.csv$/i.test(name) ? 'text/csv' : 'application/octet-stream')
  );
}

async function askOnce(input: {
  question: string;
  conversation: ChatMessage[];
  tools: readonly Tool[];
  model: ReturnType<typeof resolveLanguageModel>;
  io: CliIo;
  values: { 'hide-reasoning'?: boolean; packets?: boolean };
  maxCycles: number | undefined;
  files: readonly ChatFile[];
  userId: string;
}): Promise<number> {
  const { io } = input;
  input.conversation.push({ role: 'user', content: input.question });
  const turn = runChatTurn({
    model: input.model,
    messages: input.conversation,
    tools: input.tools,
    files: input.files,
    userId: input.userId,
    ...(input.maxCycles ? { maxCycles: input.maxCycles } : {}),
  });
  const interactive = Boolean(io.stdout.isTTY);
  const renderer = new TerminalRenderer({
    write: (text) => io.stdout.write(text),
    interactive,
    color: interactive && !io.env.NO_COLOR,
    showReasoning: !input.values['hide-reasoning'],
  });
  for await (const packet of turn) {
    if (input.values.packets) io.stdout.write(`${JSON.stringify(packet)}\n`);
    else renderer.render(packet);
  }
  const result = await turn.result;
  input.conversation.push(...result.messages);
  if (result.error) {
    io.stderr.write(`toolbus: ${result.error.message}\n`);
    return 1;
  }
  if (!input.values.packets) renderer.renderSources(uniqueByDocument(result.citedDocuments));
  return 0;
}

function uniqueByDocument(documents: readonly CitedDocument[]): CitedDocument[] {
  const seen = new Set<number>();
  return documents.filter(
    (document) => !seen.has(document.citationNumber) && seen.add(document.citationNumber),
  );
}

function toolIdsFromNames(list: string): string[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.map((name) => {
    const entry = BUILT_IN_TOOLS_BY_NAME.get(name);
    if (!entry) {
      throw new ToolbusError({
        code: 'unknown_tool_name',
        message: `Unknown tool "${name}" in --tools. Built-in tools: ${BUILT_IN_TOOLS.map((tool) => tool.name).join(', ')}.`,
      });
    }
    return entry.id;
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
