import { defineTool } from '@toolbus/core';
import type { CodeInterpreter, SessionCommandResponse } from '@toolbus/sandbox';
import type { Tool } from '@toolbus/spec';
import { truncateOutput } from '@toolbus/tools';
import * as z from 'zod';

/** The bash tool's LLM-facing name. */
export const BASH_TOOL_NAME = 'bash';

/** Options for {@link createBashTool}. */
export interface BashToolOptions {
  readonly client: CodeInterpreter;
  /** The session the repository was unpacked in; every command runs there. */
  readonly sessionId: string;
  readonly commandTimeoutMs: number;
  readonly maxOutputCharacters: number;
}

/** What the model reads after a command. */
export interface BashResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exit_code: number | null;
  readonly timed_out: boolean;
  readonly error: string | null;
}

/**
 * `bash`, offered only inside the coding agent: runs `bash -c cmd` in the agent's sandbox session, in the
 * repository's folder, and streams the output as `bash-delta` packets while it runs. Calls of one step run one
 * after another (`serial`): they share the filesystem. The command streams to the UI while the model writes it.
 * A command that fails, hangs (killed at the timeout) or cannot run is an ordinary result the model reads.
 */
export function createBashTool(options: BashToolOptions): Tool {
  return defineTool({
    name: BASH_TOOL_NAME,
    displayName: 'Bash',
    description:
      'Run a bash command in the repository (read-only exploration: rg, cat, sed -n, ls, tree, find, git log, git ' +
      `grep, jq). No network. Each command is killed after ${Math.round(options.commandTimeoutMs / 1000)} s; ` +
      `output beyond ${options.maxOutputCharacters} characters is cut, so narrow what you print.`,
    parameters: z.object({ cmd: z.string().min(1).describe('The bash command, e.g. rg -n "def main" src') }),
    exampleArguments: { cmd: 'rg -n "TODO" src | head -50' },
    concurrency: 'serial',
    streamsArgumentDeltas: true,
    timeoutMs: options.commandTimeoutMs + 15_000,
    emitStart: (_placement, emitter, call) =>
      emitter.emit({ type: 'bash-start', toolCallId: call.id, command: String(call.arguments.cmd ?? '') }),
    async run({ cmd }, context) {
      const toolCallId = context.call.id;
      let result: SessionCommandResponse | undefined;
      let failure: string | undefined;
      try {
        for await (const event of options.client.runSessionCommandStream(
          options.sessionId,
          { command: cmd, timeout_ms: options.commandTimeoutMs },
          { signal: context.signal },
        )) {
          if (event.type === 'output')
            context.emitter.emit({ type: 'bash-delta', toolCallId, [event.stream]: event.data });
          else if (event.type === 'result') result = event.result;
          else failure = event.message;
        }
      } catch (error) {
        if (context.signal.aborted) throw error;
        failure = error instanceof Error ? error.message : String(error);
      }
      if (!result) {
        context.emitter.emit({
          type: 'bash-delta',
          toolCallId,
          exitCode: -1,
          timedOut: false,
          stderr: failure ?? '',
        });
        const answer: BashResult = {
          stdout: '',
          stderr: failure ?? 'the command did not run',
          exit_code: -1,
          timed_out: false,
          error: `The command could not run: ${failure ?? 'no result'}`,
        };
        return JSON.stringify(answer);
      }
      context.emitter.emit({
        type: 'bash-delta',
        toolCallId,
        exitCode: result.exit_code,
        timedOut: result.timed_out,
      });
      const stderr = truncateOutput(result.stderr, options.maxOutputCharacters);
      const answer: BashResult = {
        stdout: truncateOutput(result.stdout, options.maxOutputCharacters),
        stderr,
        exit_code: result.exit_code,
        timed_out: result.timed_out,
        error: result.timed_out
          ? `The command did not finish within ${options.commandTimeoutMs} ms and was killed; try a narrower command.`
          : result.exit_code === 0
            ? null
            : stderr || `The command exited with status ${String(result.exit_code)}.`,
      };
      return JSON.stringify(answer);
    },
  });
}
