import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { omitUndefined } from '@toolbus/spec';

const managed = { 'app.kubernetes.io/managed-by': 'toolbus' };

/** Labels of a sandbox pod or container of ours, with the chat it serves when given. */
export function labelsFor(sandboxId: string, userId: string, sessionId?: string): Record<string, string> {
  return {
    ...managed,
    'toolbus.dev/sandbox-id': sandboxId,
    'toolbus.dev/user-id': userId,
    ...omitUndefined({ 'toolbus.dev/session-id': sessionId }),
  };
}

/** A running pod as the API returns it. */
export function pod(uid: string, ip: string, labels: Record<string, string>, resourceVersion = '1') {
  return { metadata: { uid, name: uid, labels, resourceVersion }, status: { podIP: ip, phase: 'Running' } };
}

/** Polls until `condition` holds. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A loopback HTTP server. */
export async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A loopback API server speaking the Kubernetes list and watch wire format for one namespace's pods. */
export async function startFakeKubernetes() {
  const state = {
    pods: [] as unknown[],
    resourceVersion: '100',
    watchStatus: 200,
    lists: 0,
    watchVersions: [] as string[],
    watches: [] as ServerResponse[],
  };
  const { server, url } = await listen((request, response) => {
    const requestUrl = new URL(request.url ?? '/', 'http://x');
    assert.equal(requestUrl.pathname, '/api/v1/namespaces/sandboxes/pods');
    assert.equal(request.headers.authorization, 'Bearer k8s-token');
    if (requestUrl.searchParams.get('watch') !== '1') {
      state.lists += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'PodList',
          metadata: { resourceVersion: state.resourceVersion },
          items: state.pods,
        }),
      );
      return;
    }
    state.watchVersions.push(requestUrl.searchParams.get('resourceVersion') ?? '');
    if (state.watchStatus !== 200) {
      response.writeHead(state.watchStatus, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', code: state.watchStatus }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    state.watches.push(response);
  });
  const send = (event: unknown) => {
    for (const watch of state.watches) watch.write(`${JSON.stringify(event)}\n`);
  };
  const endWatches = () => {
    for (const watch of state.watches.splice(0)) watch.end();
  };
  return {
    url,
    state,
    send,
    endWatches,
    close: () => {
      endWatches();
      server.closeAllConnections();
      server.close();
    },
  };
}

