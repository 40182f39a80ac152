import { BUILT_IN_TOOLS_BY_ID, defineTool } from '@toolbus/core';
import { type CodeInterpreter, CodeInterpreterError, type ExecuteResponse } from '@toolbus/sandbox';
import {
  type FileReference,
  omitUndefined,
  type Tool,
  ToolbusError,
  ToolExecutionError,
} from '@toolbus/spec';
import * as z from 'zod';
import { guessMediaType } from './guess-media-type.ts';
import { InterpreterUploadCache } from './interpreter-upload-cache.ts';
import type { PythonToolFiles } from './python-tool-files.ts';
import { type StagingLimits, stageChatFiles } from './stage-chat-files.ts';
import { truncateOutput } from './truncate-output.ts';

/** Options for {@link createPythonTool}. */
export interface PythonToolOptions {
  /** One service (`CodeInterpreterClient`) or several (`CodeInterpreterPool`). */
  readonly client: CodeInterpreter;
  readonly files: PythonToolFiles;
  /**
   * Skills (by name) mounted read-only at `/workspace/managed/skills/<name>/` for every run; the service must have
   * them under its skills root (and be 1.1.0 or newer). Tell the model about them with `renderSkillsPromptSection`
   * of @toolbus/skills.
   */
  readonly skills?: readonly string[];
  /**
   * What the description says of the skills, e.g. `renderSkillsPromptSection`'s list of names, descriptions and
   * paths (`toolbus serve`, whose system prompt does not list them); default one sentence saying where skills are.
   */
  readonly skillsDescription?: string;
  /** Share one across an agent run so a file is uploaded once; default: one per tool instance (one per turn). */
  readonly uploadCache?: InterpreterUploadCache;
  /** Wall-clock limit of one run. Default 60 s (the service's maximum). */
  readonly executionTimeoutMs?: number;
  /** stdout and stderr are each cut to this many characters for the model. Default 50,000. */
  readonly maxOutputCharacters?: number;
  readonly staging?: Partial<StagingLimits>;
  /** The LLM-facing name; default the built-in registry's name for the python tool. */
  readonly name?: string;
  /**
   * Mints the signed egress token of one run (its tool call and how long it may take), for services that relay
   * run network to a standalone egress proxy; undefined: the run gets no network there. Absent: no token is sent.
   */
  readonly egressToken?: (run: {
    readonly toolCallId: string;
    readonly timeoutMs: number;
  }) => Promise<string | undefined>;
}

const defaultStaging: StagingLimits = { maxFiles: 25, maxBytes: 100 * 1024 * 1024, concurrency: 8 };
const pythonEntry = BUILT_IN_TOOLS_BY_ID.get('PythonTool');

const parameters = z.object({
  code: z.string().min(1).describe('The Python 3 code to run. Print what you need to see.'),
});

const skillsSentence =
  "Skills are read-only folders under /workspace/managed/skills/<name>/: read a skill's SKILL.md before using its scripts.";

const description = [
  'Run Python 3 code in a sandbox and see its stdout and stderr. numpy, pandas and matplotlib are installed.',
  'There is no network access. Files the user attached are in the working directory under their names.',
  'Save files (e.g. plt.savefig("chart.png"), df.to_csv("out.csv")) in the working directory to return them to the user.',
  'The value of a final bare expression is printed. Each call starts fresh: variables do not persist between calls.',
].join(' ');

/**
 * The `python` tool: runs the model's code on the code-execution service and streams its output to the UI. The
 * chat's files are staged into the workspace (uploaded once per name and content); generated files are saved to
 * the application's file store and returned as rich objects. Errors in the code are ordinary results the model
 * reads and fixes; only failures of the service itself raise `ToolExecutionError`.
 */
export function createPythonTool(options: PythonToolOptions): Tool {
  const cache = options.uploadCache ?? new InterpreterUploadCache();
  const executionTimeoutMs = options.executionTimeoutMs ?? 60_000;
  const maxOutputCharacters = options.maxOutputCharacters ?? 50_000;
  const staging = { ...defaultStaging, ...options.staging };
  const skills = [...(options.skills ?? [])];

  return defineTool({
    name: options.name ?? pythonEntry?.name ?? 'python',
    displayName: 'Code Interpreter',
    description:
      skills.length === 0
        ? description
        : options.skillsDescription
          ? `${description}\n\n${options.skillsDescription.trim()}`
          : `${description} ${skillsSentence}`,
    parameters,
    streamsArgumentDeltas: true,
    // Staging and saving files take time beyond the run itself.
    timeoutMs: executionTimeoutMs + 60_000,
    // Offered even while no service answers: a call then says so in the interpreter's (or pool's) own words, which
    // the model passes on, instead of the tool vanishing and the model being told there is no such tool.
    run: async ({ code }, context) => {
      const toolCallId = context.call.id;
      try {
        const staged = await stageChatFiles({
          code,
          chatFiles: context.files,
          files: options.files,
          client: options.client,
          cache,
          limits: staging,
          // Skills are mounted over /workspace/managed: a chat file of that name would be refused, so it is renamed.
          ...(skills.length > 0 ? { reservedNames: ['managed'] } : {}),
          signal: context.signal,
          userId: context.userId,
        });
        const egressToken = await options.egressToken?.({ toolCallId, timeoutMs: executionTimeoutMs });
        let result: ExecuteResponse | undefined;
        for await (const event of options.client.executeStream(
          {
            code,
            timeout_ms: executionTimeoutMs,
            files: staged.inputs,
            ...(skills.length > 0 ? { skills } : {}),
          },
          // The service counts the run's output files against this user's share of its file store; the egress tag
          // lets an approval this run's network access asks for appear at this tool call.
          omitUndefined({
            signal: context.signal,
            userId: context.userId,
            egressTag: toolCallId,
            egressToken,
          }),
        )) {
          if (event.type === 'output') {
            context.emitter.emit({ type: 'python-delta', toolCallId, [event.stream]: event.data });
          } else if (event.type === 'result') {
            result = event.result;
          } else {
            throw new ToolExecutionError({
              code: 'code_interpreter_failed',
              message: `The code interpreter failed: ${event.message}`,
            });
          }
        }
        if (!result)
          throw new ToolExecutionError({
            code: 'code_interpreter_failed',
            message: 'The code interpreter sent no result.',
          });

        const generated: FileReference[] = [];
        for (const file of result.files) {
          const name = file.path.split('/').at(-1) || 'file';
          const mediaType = guessMediaType(name);
          const content = await options.client.downloadFile(file.file_id, { signal: context.signal });
          const saved = await options.files.saveGenerated({ name, mediaType, content });
          generated.push({ fileId: saved.id, name, mediaType, sizeBytes: content.byteLength });
          // The copy in the interpreter is no longer needed; its TTL removes it if this fails.
          options.client.deleteFile(file.file_id).catch(() => {});
        }
        if (generated.length > 0)
          context.emitter.emit({ type: 'python-delta', toolCallId, files: generated });

        context.emitter.emit({
          type: 'python-delta',
          toolCallId,
          exitCode: result.exit_code,
          timedOut: result.timed_out,
        });
        const stdout = truncateOutput(result.stdout, maxOutputCharacters);
        const stderr = truncateOutput(result.stderr, maxOutputCharacters);
        const failed = result.timed_out || result.exit_code !== 0;
        const llmFacing = JSON.stringify({
          type: 'python_execution',
          stdout,
          stderr,
          exit_code: result.exit_code,
          timed_out: result.timed_out,
          generated_files: generated.map((file) => ({ filename: file.name, file_id: file.fileId })),
          error: result.timed_out
            ? `The code did not finish within ${executionTimeoutMs} ms and was stopped.`
            : failed
              ? stderr || `The code exited with status ${String(result.exit_code)}.`
              : null,
          staging_notice: staged.notice,
        });
        return {
          llmFacing,
          rich: {
            type: 'python-execution',
            stdout: result.stdout,
            stderr: result.stderr,
            exitCode: result.exit_code,
            timedOut: result.timed_out,
            files: generated,
          },
        };
      } catch (error) {
        if (
          context.signal.aborted ||
          (ToolbusError.isInstance(error) && !CodeInterpreterError.isInstance(error))
        ) {
          throw error;
        }
        throw new ToolExecutionError({
          code: 'code_interpreter_failed',
          message: `The code interpreter is not working right now (${error instanceof Error ? error.message : String(error)}). Do not retry this call; answer without running code.`,
          cause: error,
        });
      }
    },
  });
}
