import { omitUndefined } from '@toolbus/spec';
import { abortOnClose, readJsonObject, sendJson } from './http-io.ts';
import { requestEgressTag, requestEgressToken, requestOwner } from './request-owner.ts';
import type { RouteCall } from './route-table.ts';
import { runExecution } from './run-execution.ts';
import { streamRun } from './stream-run.ts';

/** Largest JSON body of any request (code and stdin have their own, smaller limits inside it). */
export const jsonBodyLimit = 4 * 1024 * 1024;

/** `POST /v1/execute`: runs code and answers with its outcome. */
export async function handleExecute({ service, request, response }: RouteCall): Promise<void> {
  const owner = requestOwner(request);
  const egressTag = requestEgressTag(request);
  const egressToken = requestEgressToken(request);
  const body = await readJsonObject(request, jsonBodyLimit);
  const result = await runExecution(service, {
    body,
    signal: abortOnClose(response),
    ...omitUndefined({ owner, egressTag, egressToken }),
  });
  sendJson(response, 200, result);
}

/** `POST /v1/execute/stream`: the same run as server-sent events, output as it happens, then the result. */
export async function handleExecuteStream({ service, request, response }: RouteCall): Promise<void> {
  const owner = requestOwner(request);
  const egressTag = requestEgressTag(request);
  const egressToken = requestEgressToken(request);
  const body = await readJsonObject(request, jsonBodyLimit);
  await streamRun(service, response, (hooks) =>
    runExecution(service, {
      body,
      signal: abortOnClose(response),
      ...omitUndefined({ owner, egressTag, egressToken }),
      ...hooks,
    }),
  );
}
