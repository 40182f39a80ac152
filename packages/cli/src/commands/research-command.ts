import type { LanguageModelV4 } from '@ai-sdk/provider';
import { runTurn } from '@toolbus/research';
import type { ChatMessage, CitedDocument, Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { CliIo } from '../cli-io.ts';
import { closestName } from '../closest-name.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { ResearchRenderer } from '../research-renderer.ts';
import { STOPPED_MARK } from '../run-cli-turn.ts';
import { terminalOutput } from '../terminal-output.ts';
import { UsageError } from '../usage-error.ts';
import { chatOptions, runChatCommand } from './chat-command.ts';
import type { CliCommand } from './cli-command.ts';

export const researchUsage = `Usage: toolbus research "question" [options]

Deep Research: clarifying questions (or straight to a plan), research agents working in parallel with
internal_search, web_search and open_url, then one long report with its sources; citations the cited source
does not support are flagged. Takes the options of \`toolbus chat\`, plus:

  --context-window <n>    the model's input window in tokens (required unless TOOLBUS_CONTEXT_WINDOW is set;
                          models under 50000 are refused)
  --skip-clarification    go straight to the plan
  --no-citation-check     do not check the report's citations against their sources
  --reasoning             the model reasons natively (fewer orchestrator cycles, no think_tool)
`;

const researchFlags = ['--context-window', '--skip-clarification', '--no-citation-check', '--reasoning'];

/** What `--research` runs with (from `toolbus research`'s flags, or defaults for `toolbus chat --research`). */
export interface ResearchCommandOptions {
  readonly contextWindowTokens?: number;
  readonly skipClarification?: boolean;
  readonly checkCitations?: boolean;
  readonly reasoningModel?: boolean;
}

/** `toolbus research "question"`: Deep Research on the terminal. */
export const researchCommand: CliCommand = {
  name: 'research',
  synopsis: 'research "question"      Deep Research: plan, parallel agents, a cited report',
  usage: researchUsage,
  run: (argv, io) => runResearchCommand(argv, io),
};

/** `toolbus research`: `toolbus chat --research` with the research flags taken out first. */
export async function runResearchCommand(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(researchUsage);
    return 0;
  }
  const rest: string[] = [];
  const options: { -readonly [K in keyof ResearchCommandOptions]: ResearchCommandOptions[K] } = {};
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === '--skip-clarification') options.skipClarification = true;
    else if (argument === '--no-citation-check') options.checkCitations = false;
    else if (argument === '--reasoning') options.reasoningModel = true;
    else if (argument === '--context-window' || argument.startsWith('--context-window=')) {
      const joined = argument.includes('=');
      const raw = joined ? argument.slice(argument.indexOf('=') + 1) : argv[index + 1];
      const tokens = Number(raw);
      if (raw === undefined || raw === '' || !Number.isInteger(tokens) || tokens < 1) {
        throw new UsageError({
          message: `--context-window takes a number of tokens${raw === undefined ? '' : `, not "${raw}"`}.`,
          usage: researchUsage,
        });
      }
      options.contextWindowTokens = tokens;
      if (!joined) index += 1;
    } else rest.push(argument);
  }
  // Chat would suggest only its own flags for a typo of one of these: check both sets here.
  const known = [...researchFlags, ...Object.keys(chatOptions).map((name) => `--${name}`)];
  for (const argument of rest) {
    if (argument === '--') break;
    const flag = argument.split('=')[0] as string;
    if (!flag.startsWith('--') || known.includes(flag)) continue;
    const suggestion = closestName(flag, known);
    throw new UsageError({
      message: `unknown option ${flag}${suggestion ? ` — did you mean ${suggestion}?` : ''}`,
      usage: researchUsage,
    });
  }
  return runChatCommand(['--research', ...rest], io, options);
}

/** Keeps what a research conversation needs across questions (a clarification makes the next turn skip it). */
export interface ResearchSession {
  clarified: boolean;
}

/** One research turn on the terminal: plan, agent lines, report, sources, unsupported citations. */
export async function askResearch(input: {
  readonly question: string;
  readonly conversation: ChatMessage[];
  readonly tools: readonly Tool[];
  readonly model: LanguageModelV4;
  readonly io: CliIo;
  readonly packets: boolean;
  readonly showReasoning: boolean;
  readonly options: ResearchCommandOptions;
  readonly session: ResearchSession;
  /** Stops the run (Ctrl-C in the terminal). */
  readonly signal?: AbortSignal;
}): Promise<number> {
  const { io } = input;
  const fromEnv = Number(io.env.TOOLBUS_CONTEXT_WINDOW);
  const contextWindowTokens =
    input.options.contextWindowTokens ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined);
  input.conversation.push({ role: 'user', content: input.question });
  const turn = runTurn({
    model: input.model,
    messages: input.conversation,
    tools: input.tools,
    ...omitUndefined({ signal: input.signal }),
    research: {
      ...omitUndefined({ contextWindowTokens }),
      skipClarification: input.options.skipClarification === true || input.session.clarified,
      ...(input.options.checkCitations === false ? { checkCitations: false } : {}),
      ...(input.options.reasoningModel ? { reasoningModel: true } : {}),
    },
  });
  const renderer = new ResearchRenderer({ ...terminalOutput(io), showReasoning: input.showReasoning });
  for await (const packet of turn) {
    if (input.packets) io.stdout.write(`${JSON.stringify(packet)}\n`);
    else renderer.render(packet);
  }
  const result = await turn.result;
  input.conversation.push(...result.messages);
  input.session.clarified = result.clarification;
  // Ctrl-C: the run was stopped, not broken ("the model step was aborted by the caller"), and says so as chat does.
  if (input.signal?.aborted) {
    if (!input.packets) io.stdout.write(`\n${STOPPED_MARK}\n`);
    return EXIT_CODES.interrupted;
  }
  if (result.error) {
    const hint =
      result.error.code === 'context_unknown'
        ? ' Pass --context-window <tokens> (or set TOOLBUS_CONTEXT_WINDOW).'
        : '';
    io.stderr.write(`toolbus: ${result.error.message}${hint}\n`);
    return 1;
  }
  if (result.clarification) {
    if (!input.packets) io.stdout.write('\n(Answer the questions to continue the research.)\n');
    return 0;
  }
  if (!input.packets) renderer.renderSources(uniqueByNumber(result.citedDocuments));
  return 0;
}

function uniqueByNumber(documents: readonly CitedDocument[]): CitedDocument[] {
  const seen = new Set<number>();
  return documents.filter(
    (document) => !seen.has(document.citationNumber) && seen.add(document.citationNumber),
  );
}
