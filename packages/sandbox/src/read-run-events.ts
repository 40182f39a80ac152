import type { CodeInterpreterCallOptions, RunStreamEvent } from './code-interpreter.ts';
import { CodeInterpreterError } from './code-interpreter-error.ts';
import { parseServerSentEvents } from './parse-server-sent-events.ts';
import { SERVICE_STOPPED_MESSAGE } from './service-stopped.ts';

/** The server-sent events of a streamed run: output, then one result or error (a broken stream is an error). */
export async function* readRunEvents<Result>(
  response: Response,
  options: CodeInterpreterCallOptions,
): AsyncGenerator<RunStreamEvent<Result>> {
  if (!response.body)
    throw new CodeInterpreterError({ code: 'code_interpreter_protocol', message: 'empty stream' });
  let finished = false;
  try {
    for await (const event of parseServerSentEvents(response.body)) {
      const data = parseEventData(event.data);
      if (event.event === 'output' && data && (data.stream === 'stdout' || data.stream === 'stderr')) {
        yield { type: 'output', stream: data.stream, data: String(data.data ?? '') };
      } else if (event.event === 'result' && data) {
        finished = true;
        yield { type: 'result', result: data as unknown as Result };
        return;
      } else if (event.event === 'error') {
        finished = true;
        yield { type: 'error', message: String(data?.message ?? 'the execution failed') };
        return;
      }
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    finished = true;
    // The cause (undici's "terminated", a reset) says nothing the model or the person could act on.
    yield { type: 'error', message: SERVICE_STOPPED_MESSAGE, serviceStopped: true };
  } finally {
    if (!finished) await response.body.cancel().catch(() => {});
  }
  if (!finished) yield { type: 'error', message: SERVICE_STOPPED_MESSAGE, serviceStopped: true };
}

/** A batch run's answer as the events a stream would have given: its output, then its result. */
export async function* replayRunResult<Result extends { readonly stdout: string; readonly stderr: string }>(
  result: Result,
): AsyncGenerator<RunStreamEvent<Result>> {
  if (result.stdout) yield { type: 'output', stream: 'stdout', data: result.stdout };
  if (result.stderr) yield { type: 'output', stream: 'stderr', data: result.stderr };
  yield { type: 'result', result };
}

function parseEventData(data: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
