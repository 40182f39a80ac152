import { HttpError } from './http-error.ts';
import { abortOnClose, readJsonObject, sendJson } from './http-io.ts';
import { requestOwner } from './request-owner.ts';
import type { RouteCall } from './route-table.ts';
import { runExecution } from './run-execution.ts';

/** Largest JSON body of any request (code and stdin have their own, smaller limits inside it). */
export const jsonBodyLimit = 4 * 1024 * 1024;

/** `POST /v1/execute`: runs code and answers with its outcome. */
export async function handleExecute({ service, request, response }: RouteCall): Promise<void> {
  const owner = requestOwner(request);
  const body = await readJsonObject(request, jsonBodyLimit);
  const result = await runExecution(service, {
    body,
    signal: abortOnClose(response),
    ...(owner === undefined ? {} : { owner }),
  });
  sendJson(response, 200, result);
}

/** `POST /v1/execute/stream`: the same run as server-sent events, output as it happens, then the result. */
export async function handleExecuteStream({ service, request, response }: RouteCall): Promise<void> {
  const owner = requestOwner(request);
  const body = await readJsonObject(request, jsonBodyLimit);
  const send = (event: string, data: unknown): void => {
    if (!response.writableEnded) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  try {
    const result = await runExecution(service, {
      body,
      signal: abortOnClose(response),
      ...(owner === undefined ? {} : { owner }),
      onStart: () => {
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
