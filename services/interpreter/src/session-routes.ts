import type { CreateSessionResponse, SessionCommandResponse } from '@toolbus/spec';
import { jsonBodyLimit } from './execute-routes.ts';
import { HttpError } from './http-error.ts';
import { abortOnClose, readJsonObject, sendJson } from './http-io.ts';
import { requireSandbox, resolveInputs, resolveSkills } from './interpreter-service.ts';
import { parseBashRequest, parseCreateSessionRequest } from './request-validation.ts';
import type { RouteCall } from './route-table.ts';
import type { SandboxRunResult } from './run-in-sandbox.ts';
import { streamRun } from './stream-run.ts';

/** `POST /v1/sessions`: a workspace that lives across commands until its TTL. */
export async function handleCreateSession({ service, request, response }: RouteCall): Promise<void> {
  const parsed = parseCreateSessionRequest(await readJsonObject(request, jsonBodyLimit), service.limits);
  const inputs = resolveInputs(service, parsed.files);
  const skills = await resolveSkills(service, parsed.skills);
  requireSandbox(service);
  const session = await service.sessions.create({ ttlSeconds: parsed.ttlSeconds, files: inputs, skills });
  const body: CreateSessionResponse = {
    session_id: session.id,
    expires_at: Math.floor(session.expiresAt / 1000),
  };
  sendJson(response, 201, body);
}

/** `DELETE /v1/sessions/{id}`. */
export async function handleDeleteSession({ service, response, params }: RouteCall): Promise<void> {
  if (await service.sessions.delete(params.sessionId ?? '')) response.writeHead(204).end();
  else throw new HttpError({ status: 404, code: 'session_not_found', message: 'no such session' });
}

/** `POST /v1/sessions/{id}/bash`: one command in the session's workspace. */
export async function handleSessionCommand({ service, request, response, params }: RouteCall): Promise<void> {
  const parsed = parseBashRequest(await readJsonObject(request, jsonBodyLimit), service.limits);
  requireSandbox(service);
  const signal = abortOnClose(response);
  const id = params.sessionId ?? '';
  const result = await service.queue.run(() => service.sessions.run({ id, ...parsed, signal }));
  sendJson(response, 200, sessionCommandResponse(result));
}

/** `POST /v1/sessions/{id}/bash/stream`: the session command as server-sent events (output, then one result). */
export async function handleSessionCommandStream({
  service,
  request,
  response,
  params,
}: RouteCall): Promise<void> {
  const parsed = parseBashRequest(await readJsonObject(request, jsonBodyLimit), service.limits);
  requireSandbox(service);
  const signal = abortOnClose(response);
  const id = params.sessionId ?? '';
  await streamRun(service, response, async ({ onStart, onOutput }) => {
    const result = await service.queue.run(() => {
      // An unknown session throws here, before the headers: it stays a plain 404.
      const running = service.sessions.run({ id, ...parsed, signal, onOutput });
      onStart();
      return running;
    });
    return sessionCommandResponse(result);
  });
}

/** A finished session command in the wire's shape, for the plain and the streamed route alike. */
function sessionCommandResponse(run: SandboxRunResult): SessionCommandResponse {
  const { stdout, stderr, exitCode, timedOut, durationMs } = run;
  return { stdout, stderr, exit_code: exitCode, timed_out: timedOut, duration_ms: durationMs };
}
