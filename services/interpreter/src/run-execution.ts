import type { ExecuteResponse } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { collectOutputFiles } from './collect-output-files.ts';
import {
  type InterpreterService,
  requireSandbox,
  resolveInputs,
  resolveSkills,
} from './interpreter-service.ts';
import { parseExecuteRequest } from './request-validation.ts';
import type { OutputStreamName } from './run-in-sandbox.ts';

/** Appends the service's notes (files left out, listing cut short) to a run's stderr, where the model reads it. */
export function withNotes(stderr: string, notes: readonly string[]): string {
  if (notes.length === 0) return stderr;
  const separator = stderr === '' || stderr.endsWith('\n') ? '' : '\n';
  return `${stderr}${separator}${notes.map((note) => `[interpreter] ${note}\n`).join('')}`;
}

/**
 * One execution: validates the body, waits for a slot, runs the code in a fresh workspace, stores its output
 * files and removes the workspace. `onStart` fires when the slot is taken (the stream sends its headers then).
 */
export async function runExecution(
  service: InterpreterService,
  options: {
    body: Record<string, unknown>;
    owner?: string;
    egressTag?: string;
    /** The run's signed egress token, handed to the egress provider only (never logged, never in the sandbox). */
    egressToken?: string;
    onStart?: () => void;
    onOutput?: (stream: OutputStreamName, data: string) => void;
    signal: AbortSignal;
  },
): Promise<ExecuteResponse> {
  const request = parseExecuteRequest(options.body, service.limits);
  const inputs = resolveInputs(service, request.files);
  const skills = await resolveSkills(service, request.skills);
  requireSandbox(service);
  const { executor } = service;
  return service.queue.run(async () => {
    options.onStart?.();
    const workspace = await executor.createWorkspace(inputs);
    try {
      const result = await executor.runPython({
        workspace,
        code: request.code,
        timeoutMs: request.timeoutMs,
        skills,
        signal: options.signal,
        ...omitUndefined({
          stdin: request.stdin,
          egressTag: options.egressTag,
          egressToken: options.egressToken,
          onOutput: options.onOutput,
        }),
      });
      let files: ExecuteResponse['files'] = [];
      const notes: string[] = [];
      // The run happened: whatever goes wrong with its files, its output still reaches the caller.
      try {
        const changed = await executor.changedFiles(workspace);
        const outputs = await collectOutputFiles({
          changed: changed.files,
          files: service.files,
          maxCollectedBytes: service.limits.maxCollectedBytes,
          ...omitUndefined({ owner: options.owner }),
        });
        files = outputs.files;
        notes.push(...changed.notes, ...outputs.notes);
      } catch (error) {
        service.log(
          `interpreter: collecting output files failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        notes.push('the output files could not be collected');
      }
      return {
        stdout: result.stdout,
        stderr: withNotes(result.stderr, notes),
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        duration_ms: result.durationMs,
        files,
      };
    } finally {
      await executor.removeWorkspace(workspace);
    }
  });
}
