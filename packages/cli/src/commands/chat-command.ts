import { join, resolve } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { constructTools, setAsideTools, type ToolAssembly } from '@toolbus/assembly';
import { probeModelEndpoint, resolveLanguageModel } from '@toolbus/core';
import { createNodeHttpFetch, type GuardedFetch } from '@toolbus/core/node';
import { builtInToolFactories, toolLimitsForModel } from '@toolbus/server';
import type { ChatFile, ChatMessage } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { withSavedMemories } from '@toolbus/tools';
import { attachFiles, readAttachment } from '../chat-attachments.ts';
import { openKeptChat } from '../chat-history.ts';
import { type CliConfig, loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { createCliFetch } from '../create-cli-fetch.ts';
import { describeSkippedTools } from '../describe-skipped-tools.ts';
import { egressSecretKey } from '../egress-secret-key.ts';
import { runInteractiveChat } from '../interactive-chat.ts';
import { type ChatSkills, loadChatSkills } from '../load-skills.ts';
import { observeModelFetch } from '../observed-model-fetch.ts';
import { type CliWorkspace, openWorkspace } from '../open-workspace.ts';
import { parseCommandArgs } from '../parse-command-args.ts';
import { runCliTurn, signalStopReason } from '../run-cli-turn.ts';
import { type ShutdownSignal, shutdownSignal, signalExitCode } from '../shutdown-signal.ts';
import { storageFileStores } from '../storage-file-stores.ts';
import { createTerminalApprovalAsk } from '../terminal-approval.ts';
import { createTerminalElicitation } from '../terminal-elicitation.ts';
import { UsageError } from '../usage-error.ts';
import { DEFAULT_OUTPUT_DIRECTORY } from '../write-tool-files.ts';
import { parseChatFlags } from './chat-flags.ts';
import type { CliCommand } from './cli-command.ts';
import { askResearch, type ResearchCommandOptions, type ResearchSession } from './research-command.ts';

const chatUsage = `Usage: toolbus chat ["question"] [options]

Without a question on a terminal, starts an interactive chat: Ctrl-C stops the answer being written and returns
to the prompt; Ctrl-C at the prompt, Ctrl-D or an empty line ends the chat. Without a question and with piped
input, the input is the question. Every chat is kept (toolbus history).

With a question (given or piped), Ctrl-C (SIGINT) stops the answer, keeps what was written and exits 130;
SIGTERM does the same and exits 143. SIGTERM also ends an interactive chat, keeping a stopped answer as Ctrl-C
does. A second signal exits at once.

Options:
  --model <model>        e.g. ollama:qwen2.5:7b, openai:gpt-4.1, anthropic:claude-sonnet-4-5,
                         openai-compatible:http://host:8000/v1#model (default: TOOLBUS_MODEL, the config file, Ollama)
  --persona <name>       a stored persona (default: the one \`toolbus persona use\` chose, else "default")
  --tools <names>        only these built-in tools, comma-separated (e.g. internal_search,open_url)
  --max-cycles <n>       model steps per turn (default 6; the last one has no tools and must answer)
  --hide-reasoning       do not print the model's reasoning
  --file <path>          attach a file to the chat (read_file, run_python); repeatable
  --output <dir>         where files made by tools (charts, images, CSVs) are written (default ./${DEFAULT_OUTPUT_DIRECTORY})
  --continue             go on with the most recent chat
  --chat <id>            go on with this chat (ids: toolbus history)
  --model-timeout <s>    seconds to wait for the model's first output per attempt (default 60)
  --packets              print the packet stream as NDJSON instead of text (for programs)
  --research             Deep Research instead of a chat turn (see \`toolbus research --help\`)
`;

const systemPrompt = [
  'You are a helpful assistant with tools. Use them when they help; answer directly when they do not.',
  "When you use information from a tool's documents, cite it inline with its number in square brackets, like [1].",
  'Never invent citation numbers.',
].join(' ');

/** The flags of `toolbus chat` (also taken by `toolbus research`, which checks them against its own). */
export const chatOptions = {
  model: { type: 'string' },
  persona: { type: 'string' },
  tools: { type: 'string' },
  'max-cycles': { type: 'string' },
  'hide-reasoning': { type: 'boolean', default: false },
  packets: { type: 'boolean', default: false },
  file: { type: 'string', multiple: true },
  output: { type: 'string' },
  continue: { type: 'boolean', default: false },
  chat: { type: 'string' },
  'model-timeout': { type: 'string' },
  research: { type: 'boolean', default: false },
} as const;

/** `toolbus chat`: one question, or an interactive chat, with the persona's tools; every chat is kept. */
export const chatCommand: CliCommand = {
  name: 'chat',
  synopsis: 'chat ["question"]        ask with tools (interactive without a question)',
  usage: chatUsage,
  run: (argv, io) => runChatCommand(argv, io),
};

/** Runs `toolbus chat`; `research` (from `toolbus research`) makes every question a Deep Research turn. */
export async function runChatCommand(
  argv: readonly string[],
  io: CliIo,
  research?: ResearchCommandOptions,
): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    argv,
    usage: chatUsage,
    options: chatOptions,
  });
  const { maxCycles, timeoutSeconds, allowedToolIds } = parseChatFlags({ values, usage: chatUsage });
  const { question, stdinFree } = await chatQuestion(positionals, io);
  // A file that cannot be attached is said before the model is tried or a chat is recorded.
  for (const path of values.file ?? []) await readAttachment(resolve(io.cwd, path), path);
  const config = loadCliConfig({ env: io.env, modelFlag: values.model });
  const observed = observedModelFetch(io, timeoutSeconds);
  const model = resolveLanguageModel(config.model.value, { env: io.env, fetch: observed.fetch });
  const workspace = await openWorkspace(config, { persona: values.persona });
  const guardedFetch = createCliFetch(config);
  const cleanups: (() => Promise<void>)[] = [];
  const elicitation = createTerminalElicitation(io, { stdinFree });
  cleanups.push(async () => elicitation.close());
  let stop: ShutdownSignal | undefined;
  let exitCode: number;
  try {
    const { storage, user, persona } = workspace;
    // A chat to go on with that does not exist is said first: before the model is tried or a tool source starts.
    const continueChat = values.chat ?? (values.continue ? true : undefined);
    const continued =
      continueChat === undefined
        ? undefined
        : await openKeptChat({ storage, userId: user.id, personaId: persona.id, continueChat });
    // No model configured means the local default (Ollama): say at once when nothing listens there, before any
    // tool line is printed or a chat is recorded. A configured model is not probed (its server may not list models).
    if (config.model.source === 'default') await probeModelEndpoint({ env: io.env, timeoutMs: 2000 });
    const chatFiles = await attachFiles({ paths: values.file ?? [], storage, userId: user.id, cwd: io.cwd });
    const skills = await loadChatSkills(config, io.env, (line) => io.stderr.write(line));
    cleanups.push(() => skills.close());
    const assembly = await assembleChatTools({
      config,
      io,
      workspace,
      model,
      fetch: guardedFetch,
      skills,
      chatFiles,
      allowedToolIds,
      onClose: (cleanup) => cleanups.push(cleanup),
    });
    cleanups.push(() => assembly.close());
    // The same prompt section the server's turns get: the user's memories, when memory is on.
    const promptWithMemories = await withSavedMemories({
      prompt: systemPrompt,
      memories: storage.memories,
      user,
    });
    // Skills are only usable where the sandbox is: tell the model about them when run_python is offered.
    const skillText =
      skills.promptSection && assembly.tools.some((tool) => tool.name === 'run_python')
        ? `\n\n${skills.promptSection}`
        : '';
    const kept =
      continued ??
      (await openKeptChat({ storage, userId: user.id, personaId: persona.id, continueChat: undefined }));
    const conversation: ChatMessage[] = [
      { role: 'system', content: `${promptWithMemories}${skillText}` },
      ...kept.messages,
    ];
    const toolLimits = toolLimitsForModel(config.file.toolLimits, config.model.value, io.env);
    const researchSession: ResearchSession = { clarified: false };
    const researchOptions = research ?? (values.research ? {} : undefined);
    const ask = async (question: string, signal: AbortSignal): Promise<number> => {
      if (researchOptions) {
        return askResearch({
          question,
          conversation,
          tools: assembly.tools,
          model,
          io,
          packets: values.packets,
          showReasoning: !values['hide-reasoning'],
          options: researchOptions,
          session: researchSession,
          signal,
        });
      }
      const recording = await kept.startTurn(question);
      const outcome = await runCliTurn({
        question,
        history: conversation,
        tools: assembly.tools,
        setAsideTools: setAsideTools(assembly.skipped),
        model,
        modelResponse: observed.last,
        firstChunkTimeoutMs: timeoutSeconds * 1000,
        io,
        packets: values.packets,
        showReasoning: !values['hide-reasoning'],
        maxCycles,
        files: chatFiles,
        userId: user.id,
        storage,
        toolLimits,
        toolCallDialects: config.file.toolCallDialects,
        outputDirectory: resolve(io.cwd, values.output ?? DEFAULT_OUTPUT_DIRECTORY),
        signal,
        elicit: elicitation.ask,
      });
      await recording.finish(outcome);
      conversation.push(...outcome.messages);
      return outcome.exitCode;
    };
    // Until here a signal ends the process at once (no turn has started). From here the first SIGINT or SIGTERM
    // stops the answer (kept, as Ctrl-C keeps it) and ends the chat; a second one exits at once.
    stop = shutdownSignal(io, research ? 'toolbus research' : 'toolbus chat');
    if (question || !io.stdin) {
      exitCode = await askInterruptibly(question, ask, stop.signal, io.outputClosed);
    } else {
      const toolNames = assembly.tools.map((tool) => tool.name);
      const shownTools = toolNames.length > 12 ? `${toolNames.length} tools` : toolNames.join(', ') || 'none';
      exitCode = await runInteractiveChat({
        io,
        stdin: io.stdin,
        header:
          `toolbus chat ${kept.chat.id} — persona ${persona.name}; tools: ${shownTools}.` +
          ' Ctrl-C stops an answer; Ctrl-D, or Ctrl-C at the prompt, ends the chat.\n',
        ask,
        stop: stop.signal,
      });
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await workspace.close();
    await guardedFetch.close();
    stop?.dispose();
  }
  // A signal ends the chat as stopped by it (130 or 143), also one that came as the chat was closing.
  return stop?.signal.aborted ? signalExitCode(await stop.received) : exitCode;
}

/**
 * The question, known before anything is opened: a missing one is a wrong command line and records no chat. Without
 * one on the command line, piped stdin is the question; stdin answers MCP servers' questions (`stdinFree`) unless it
 * carried the question.
 */
async function chatQuestion(
  positionals: readonly string[],
  io: CliIo,
): Promise<{ readonly question: string; readonly stdinFree: boolean }> {
  const given = positionals.join(' ').trim();
  const stdinFree = given !== '' || io.stdin?.isTTY === true;
  if (given || io.stdin?.isTTY) return { question: given, stdinFree };
  if (!io.stdin) throw new UsageError({ message: 'no question given.', usage: chatUsage });
  const piped = (await readAll(io.stdin)).trim();
  if (!piped) throw new UsageError({ message: 'no question given (stdin was empty).', usage: chatUsage });
  return { question: piped, stdinFree };
}

/**
 * The model's stream over node:http, as the server reads it (createNodeHttpFetch: a redirect and a machine with
 * NODE_USE_ENV_PROXY still go through fetch), saying on stderr when the server sends no headers for a while.
 */
function observedModelFetch(io: CliIo, timeoutSeconds: number) {
  return observeModelFetch({
    fetch: createNodeHttpFetch(),
    silenceNoticeMs: timeoutSeconds * 1000,
    onSilence: (origin) =>
      io.stderr.write(
        `toolbus: the model server at ${origin} has sent no response headers for ${timeoutSeconds} s — it may be loading the model, or it is not an LLM server. Still trying (Ctrl-C stops).\n`,
      ),
  });
}

/**
 * The persona's tools for a CLI chat, the built-ins made as the server makes them, egress approvals asked on the
 * terminal. Before the answer it says which tools were left out, and why (a server that cannot start, tools not
 * approved).
 */
async function assembleChatTools(options: {
  readonly config: CliConfig;
  readonly io: CliIo;
  readonly workspace: CliWorkspace;
  readonly model: LanguageModelV4;
  readonly fetch: GuardedFetch;
  readonly skills: ChatSkills;
  readonly chatFiles: readonly ChatFile[];
  readonly allowedToolIds: readonly string[] | undefined;
  readonly onClose: (cleanup: () => Promise<void>) => void;
}): Promise<ToolAssembly> {
  const { config, io, workspace, model, skills, allowedToolIds } = options;
  const { storage, user, persona } = workspace;
  const guardedFetch = options.fetch;
  const fileStores = storageFileStores(storage, user.id);
  const assembly = await constructTools({
    persona,
    user,
    storage,
    builtInFactories: builtInToolFactories({
      settings: config.file,
      egressCaDirectory: join(config.home, 'egress-ca'),
      egressSecretKey: () => egressSecretKey(config, io.env),
      index: workspace.index,
      storage,
      fetch: guardedFetch,
      userId: user.id,
      env: io.env,
      model,
      onClose: options.onClose,
      // Named to the model in the system prompt (below), so run_python's description keeps its one sentence.
      skills: { names: skills.names, root: skills.root },
      egressAsk: createTerminalApprovalAsk(io),
    }),
    availabilityContext: { userId: user.id, files: options.chatFiles },
    fetch: guardedFetch,
    // Tokens were stored by `toolbus mcp login`; refreshing them needs no browser.
    mcp: {
      oauthRedirectUrl: 'http://127.0.0.1/oauth/callback',
      fileStore: fileStores.mcp,
      ...omitUndefined({ toolCallTimeoutMs: config.file.mcp?.toolCallTimeoutMs }),
    },
    openApi: { fileStore: fileStores.openApi },
    // `toolbus mcp approve` gives the persona a server's whole tool set: a tool it lists beyond that is new.
    mcpWholeToolSets: true,
    ...omitUndefined({ allowedToolIds }),
  });
  const serverNames = new Map((await storage.mcpServers.list()).map((server) => [server.id, server.name]));
  for (const line of describeSkippedTools(assembly.skipped, serverNames)) io.stderr.write(`note: ${line}\n`);
  return assembly;
}

/**
 * One question: `stop` (the first SIGINT or SIGTERM, from {@link shutdownSignal}) stops the answer and keeps what
 * was written, with the signal as the reason; a second signal ends the process at once. A reader that went away
 * (`| head`) stops it the same way.
 */
async function askInterruptibly(
  question: string,
  ask: (question: string, signal: AbortSignal) => Promise<number>,
  stop: AbortSignal,
  outputClosed: AbortSignal | undefined,
): Promise<number> {
  const controller = new AbortController();
  const onStop = () => controller.abort(new Error(signalStopReason(stop.reason)));
  const onOutputClosed = () => controller.abort(outputClosed?.reason);
  if (stop.aborted) onStop();
  stop.addEventListener('abort', onStop, { once: true });
  if (outputClosed?.aborted) onOutputClosed();
  outputClosed?.addEventListener('abort', onOutputClosed, { once: true });
  try {
    return await ask(question, controller.signal);
  } finally {
    stop.removeEventListener('abort', onStop);
    outputClosed?.removeEventListener('abort', onOutputClosed);
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
