import type { ServerResponse } from 'node:http';
import { HttpError } from './http-error.ts';
import type { InterpreterService } from './interpreter-service.ts';
import type { OutputStreamName } from './run-in-sandbox.ts';

/** What a streamed run is handed: call `onStart` once it is really running, `onOutput` for every chunk. */
export interface StreamRunHooks {
  readonly onStart: () => void;
  readonly onOutput: (stream: OutputStreamName, data: string) => void;
}

/**
 * Serves one run as server-sent events: `output` events while it runs, then one `result` (or `error`). The one
 * owner of the service's SSE framing (code runs and session commands). Errors before the run starts (validation,
 * unknown ids, a full queue) stay ordinary HTTP errors, because the headers are only sent by `onStart`.
 */
export async function streamRun(
  service: InterpreterService,
  response: ServerResponse,
  run: (hooks: StreamRunHooks) => Promise<unknown>,
): Promise<void> {
  const send = (event: string, data: unknown): void => {
    if (!response.writableEnded) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  try {
    const result = await run({
      onStart: () => {
        if (response.headersSent) return;
        response.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-accel-buffering': 'no',
        });
        response.flushHeaders();
      },
      onOutput: (stream, data) => send('output', { stream, data }),
    });
    send('result', result);
    response.end();
  } catch (error) {
    if (!response.headersSent) throw error;
    service.log(`interpreter: stream failed: ${error instanceof Error ? error.message : String(error)}`);
    send('error', { message: error instanceof HttpError ? error.message : 'the execution failed' });
    response.end();
  }
}
