import type { LanguageModelV4 } from '@ai-sdk/provider';
import { runChatTurn, type ToolRunHooks, type ToolSearchLimits } from '@toolbus/core';
import type { ChatFile, ChatMessage, CitedDocument, ElicitationAsker, Packet, Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import type { CliIo } from './cli-io.ts';
import { describeModelError } from './describe-model-error.ts';
import { EXIT_CODES } from './exit-codes.ts';
import type { ModelResponseObservation } from './observed-model-fetch.ts';
import { oneLine } from './one-line.ts';
import { terminalOutput } from './terminal-output.ts';
import { TerminalRenderer } from './terminal-renderer.ts';
import { producedFiles, writeStoredFiles } from './write-tool-files.ts';

/** The mark a stopped answer carries in the conversation, so the model (and the history) knows it was cut. */
export const STOPPED_MARK = '[stopped by the user]';

/**
 * Why a turn stopped when the user stopped it (Ctrl-C): the abort reason's message the CLI gives its signal, and
 * the reason the history records. Another abort reason (the output was closed) is recorded as itself.
 */
export const USER_STOP_REASON = 'stopped by the user (Ctrl-C)';

/** Why a turn stopped when a signal stopped it: Ctrl-C (SIGINT) is {@link USER_STOP_REASON}; SIGTERM names itself. */
export function signalStopReason(signal: NodeJS.Signals): string {
  return signal === 'SIGINT' ? USER_STOP_REASON : `stopped by ${signal}`;
}

/** How a CLI turn ended, and what it adds to the conversation. */
export interface CliTurnOutcome {
  readonly status: 'completed' | 'stopped' | 'failed';
  readonly reason?: string;
  /** The user's message and everything the turn added (a stopped answer's partial text, marked). */
  readonly messages: readonly ChatMessage[];
  readonly packets: readonly Packet[];
  readonly exitCode: number;
}

/** What one turn from the command line needs. */
export interface CliTurnInput {
  /** Tools set aside (no provider accepts their schema): the turn's `tool-mode` note names them. */
  readonly setAsideTools?: readonly { readonly name: string; readonly reason: string }[];
  readonly question: string;
  /** The conversation before this question (system prompt, earlier turns). */
  readonly history: readonly ChatMessage[];
  readonly tools: readonly Tool[];
  readonly model: LanguageModelV4;
  /** How the model server last answered (to explain a failure). */
  readonly modelResponse: () => ModelResponseObservation | undefined;
  /** Longest wait for the model's first chunk, per attempt. */
  readonly firstChunkTimeoutMs?: number;
  readonly io: CliIo;
  readonly packets: boolean;
  readonly showReasoning: boolean;
  readonly maxCycles: number | undefined;
  readonly files: readonly ChatFile[];
  readonly userId: string;
  readonly storage: Storage;
  readonly toolLimits: ToolSearchLimits;
  /** The config's `toolCallDialects`: tried first when recovering calls written as text (default: by model). */
  readonly toolCallDialects?: readonly string[] | undefined;
  readonly outputDirectory: string;
  /** Aborts the model stream and the running tools (Ctrl-C). */
  readonly signal: AbortSignal;
  /** Asks the user an MCP server's question mid-call (the terminal prompt). */
  readonly elicit?: ElicitationAsker | undefined;
}

/**
 * Runs one turn for the terminal: the answer streams; each tool gets a line that ends in ✓, or ✗ with the cause
 * (the guard's reason, the server's message); files tools produced are written to the output folder and their
 * paths printed; a stopped answer is kept, marked; a turn without an answer says so and exits non-zero.
 */
export async function runCliTurn(input: CliTurnInput): Promise<CliTurnOutcome> {
  const { io } = input;
  const userMessage: ChatMessage = { role: 'user', content: input.question };
  const renderer = new TerminalRenderer({
    ...terminalOutput(io),
    showReasoning: input.showReasoning,
    ...omitUndefined({ columns: io.stdout.columns }),
    // A failed turn is reported once, on stderr, with what to try.
    printTurnErrors: false,
  });
  // How each call ended comes with its tool-end packet; these hooks add only what the terminal may show and the
  // model may not: an unexpected error's own message, and the exit status of code that ran and failed.
  const hooks: ToolRunHooks = {
    onToolCallStart: ({ call }) => ({
      end: ({ status, response, error }) => {
        const rich = response.rich;
        // Code that ran and failed is a successful call of a failed program: the user sees it as a failure.
        if (
          status === 'success' &&
          rich?.type === 'python-execution' &&
          (rich.exitCode !== 0 || rich.timedOut)
        ) {
          const lastLine = rich.stderr.trim().split('\n').at(-1) ?? '';
          renderer.noteToolFailure(
            call.id,
            oneLine(rich.timedOut ? 'the code ran out of time' : `exit ${rich.exitCode}: ${lastLine}`, 200),
          );
        } else if (status === 'unexpected-error' && error instanceof Error) {
          renderer.noteToolFailure(call.id, oneLine(error.message, 200));
        }
      },
    }),
  };
  const turn = runChatTurn({
    model: input.model,
    messages: [...input.history, userMessage],
    tools: input.tools,
    files: input.files,
    userId: input.userId,
    signal: input.signal,
    hooks,
    toolSearch: input.toolLimits,
    ...omitUndefined({
      setAsideTools: input.setAsideTools,
      elicit: input.elicit,
      recovery: input.toolCallDialects && { dialects: input.toolCallDialects },
      stream:
        input.firstChunkTimeoutMs === undefined
          ? undefined
          : { firstChunkTimeoutMs: input.firstChunkTimeoutMs },
      // 0 keeps the default, as an unset value does.
      maxCycles: input.maxCycles || undefined,
    }),
  });
  const packets: Packet[] = [];
  let shown = '';
  for await (const packet of turn) {
    packets.push(packet);
    if (packet.obj.type === 'message-delta') shown += packet.obj.content;
    if (input.packets) io.stdout.write(`${JSON.stringify(packet)}\n`);
    else renderer.render(packet);
  }
  const result = await turn.result;
  const notes = input.packets ? io.stderr : io.stdout;
  const written = await writeStoredFiles({
    files: producedFiles(packets),
    storage: input.storage,
    directory: input.outputDirectory,
  });
  if (written.length > 0) {
    notes.write(`\nFiles written:\n${written.map((path) => `  ${path}`).join('\n')}\n`);
  }
  if (result.stopReason === 'user-cancelled') {
    if (!input.packets) io.stdout.write(`${shown && !shown.endsWith('\n') ? '\n' : ''}${STOPPED_MARK}\n`);
    return {
      status: 'stopped',
      reason: input.signal.reason instanceof Error ? input.signal.reason.message : USER_STOP_REASON,
      messages: [userMessage, ...marked(result.messages, STOPPED_MARK)],
      packets,
      exitCode: EXIT_CODES.interrupted,
    };
  }
  if (result.error) {
    // One line: a provider's message can hold the server's multi-line body.
    io.stderr.write(`toolbus: ${oneLine(describeModelError(result.error, input.modelResponse()), 600)}\n`);
    return {
      status: 'failed',
      reason: result.error.message,
      // The loop keeps what the broken stream had sent (as a stop does); the mark tells the next turn's model why
      // it ends there.
      messages: [
        userMessage,
        ...(result.messages.length > 0
          ? marked(result.messages, `[this answer broke off: ${oneLine(result.error.message, 300)}]`)
          : []),
      ],
      packets,
      exitCode: EXIT_CODES.failure,
    };
  }
  if (!result.answer.trim()) {
    const cycleLimit = result.stopReason === 'cycle-limit';
    const why = cycleLimit
      ? `the model used all ${result.cycles} cycles and wrote no answer in the last one (which has no tools)`
      : 'the model ended without an answer';
    // Raising the cycle limit only helps when the limit ended the turn; an empty reply needs another attempt.
    const hint = cycleLimit
      ? `Try again, ask more narrowly, or raise --max-cycles (now ${result.cycles}).`
      : 'Try again; if it keeps happening, the model or its server may not support this kind of request.';
    io.stderr.write(`toolbus: no answer — ${why}. ${hint}\n`);
    return {
      status: 'failed',
      reason: why,
      messages: [userMessage, ...result.messages],
      packets,
      exitCode: EXIT_CODES.noAnswer,
    };
  }
  if (!input.packets) renderer.renderSources(uniqueByDocument(result.citedDocuments));
  return {
    status: 'completed',
    messages: [userMessage, ...result.messages],
    packets,
    exitCode: EXIT_CODES.ok,
  };
}

/**
 * A stopped or broken-off turn's history, marked: the loop keeps the answer the stop or the failure cut off (and the
 * finished calls with their results), and the mark goes on that answer, or after the last tool result when the end
 * came between steps.
 */
function marked(messages: readonly ChatMessage[], mark: string): ChatMessage[] {
  const last = messages.at(-1);
  if (last?.role === 'assistant' && !last.toolCalls?.length) {
    return [
      ...messages.slice(0, -1),
      { ...last, content: last.content ? `${last.content}\n\n${mark}` : mark },
    ];
  }
  return [...messages, { role: 'assistant', content: mark }];
}

function uniqueByDocument(documents: readonly CitedDocument[]): CitedDocument[] {
  const seen = new Set<number>();
  return documents.filter(
    (document) => !seen.has(document.citationNumber) && seen.add(document.citationNumber),
  );
}
