import type { HealthResponse } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { sendJson } from './http-io.ts';
import { INTERPRETER_VERSION } from './interpreter-version.ts';
import type { RouteCall } from './route-table.ts';

/** `GET /health`: the version, what the sandbox enforces (or why it cannot), and the load. */
export async function handleHealth({ service, response }: RouteCall): Promise<void> {
  const { status, reason, ...isolation } = service.isolation;
  const body: HealthResponse = {
    status,
    version: INTERPRETER_VERSION,
    ...omitUndefined({ reason }),
    isolation,
    load: service.queue.load,
    skills: service.skillsDirectory !== undefined,
  };
  sendJson(response, 200, body);
}
