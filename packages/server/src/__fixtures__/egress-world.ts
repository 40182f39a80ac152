// What an egress-approval test needs around a server: a loopback HTTPS API with its own CA (reached as
// `api.test`), the run_python built-in in the real bubblewrap sandbox with egress through the storage-backed
// proxy, the model's Python code that POSTs to the API, and a connected app whose POST is ASK.
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  createLeafCertificateCache,
  loadOrCreateCertificateAuthority,
  type CertificateAuthority,
} from '@toolbus/egress/node';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import { startInterpreterServer } from '@toolbus/interpreter';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import { omitUndefined, type Tool } from '@toolbus/spec';
import type { Storage } from '@toolbus/storage';
import type { EgressContext } from '@toolbus/egress';
import { createPythonTool } from '@toolbus/tools';
import { type SandboxEgressOptions, startSandboxEgressIfConnected } from '../egress/sandbox-egress.ts';
import type { BuiltInToolContext, ServerOptions } from '../server-options.ts';

/** One request the test API received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** A running {@link startTestHttpsApi}. */
export interface TestHttpsApi {
  readonly port: number;
  readonly ca: CertificateAuthority;
  /** Every request so far, in arrival order. */
  readonly received: ReceivedRequest[];
  close(): void;
}

/** A loopback HTTPS API answering 201 to everything, with a CA of its own kept under `directory`. */
export async function startTestHttpsApi(directory: string): Promise<TestHttpsApi> {
  const ca = await loadOrCreateCertificateAuthority({ directory });
  const leaves = createLeafCertificateCache(ca);
  const received: ReceivedRequest[] = [];
  const server: HttpsServer = createHttpsServer(
    {
      SNICallback: (name, callback) => {
        leaves.secureContextFor(name).then(
          (context) => callback(null, context),
          (error: Error) => callback(error),
        );
      },
    },
    (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization,
          body,
        });
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ created: true }));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    ca,
    received,
    close: () => server.close(),
  };
}

/** The egress network of every proxy here: `api.test` is loopback, nothing else resolves or is allowed. */
export const apiTestNetwork = {
  resolveHost: async (name: string): Promise<string[]> => {
    if (name === 'api.test') return ['127.0.0.1'];
    throw new Error('ENOTFOUND');
  },
  addressPolicy: { level: 'strict', allow: ['api.test'] },
} as const satisfies Pick<EgressContext, 'resolveHost' | 'addressPolicy'>;

/** Python that POSTs a report to the test API (with a query secret and a password field) and prints the status. */
export function postReportCode(port: number): string {
  return [
    'import json, urllib.request, urllib.error',
    `request = urllib.request.Request("https://api.test:${port}/items?trace=QUERY-SECRET", method="POST",`,
    '    data=json.dumps({"title": "Q3 report", "password": "hunter2"}).encode(),',
    '    headers={"content-type": "application/json"})',
    'try:',
    '    with urllib.request.urlopen(request, timeout=60) as response:',
    '        print("STATUS", response.status, response.read().decode())',
    'except urllib.error.HTTPError as error:',
    '    print("STATUS", error.code, error.read().decode())',
  ].join('\n');
}

/**
 * run_python as `toolbus serve` starts it at a turn's first call: a sandbox of the turn's own (an interpreter on
 * loopback), behind an egress proxy with the turn's approvals when the user has connected apps (here made when
 * the tool is, to keep the fixture short); both close with the turn. `network` says which names reach loopback
 * and which CA upstream is trusted.
 */
export async function pythonToolWithEgress(options: {
  readonly storage: Storage;
  readonly context: BuiltInToolContext;
  /** Where the egress proxy keeps its CA. */
  readonly caDirectory: string;
  readonly network: NonNullable<SandboxEgressOptions['network']>;
}): Promise<Tool> {
  const { storage, context } = options;
  const egress =
    context.approvals === undefined
      ? undefined
      : await startSandboxEgressIfConnected({
          storage,
          userId: context.user.id,
          caDirectory: options.caDirectory,
          approvals: context.approvals,
          sessionId: context.approvals.sessionId,
          network: options.network,
        });
  const interpreter = await startInterpreterServer({ port: 0, ...omitUndefined({ egress: egress?.provider }) });
  context.onClose(async () => {
    await interpreter.close();
    await egress?.close();
  });
  return createPythonTool({
    client: new CodeInterpreterClient({ baseUrl: interpreter.url }),
    files: {
      readContent: (fileId) => storage.files.readContent(fileId),
      saveGenerated: (file) =>
        storage.files.put({ userId: context.user.id, organizationId: context.organizationId, ...file }),
    },
  });
}

/** The built-in tools of an egress-approval test: run_python only, reaching `api.test` (the test API) alone. */
export function pythonWithEgressFactories(options: {
  readonly storage: Storage;
  /** Where the egress proxy keeps its CA. */
  readonly caDirectory: string;
  readonly api: TestHttpsApi;
}): NonNullable<ServerOptions['builtInToolFactories']> {
  const { storage, caDirectory, api } = options;
  const network = { ...apiTestNetwork, upstreamTrustedCa: [api.ca.certificatePem] };
  return (context) =>
    new Map([['PythonTool', () => pythonToolWithEgress({ storage, context, caDirectory, network })]]);
}

/** Connects the test API for the key's user as app "Tracker": POST /items is ASK, the token is `secret`. */
export async function connectTrackerApp(options: {
  readonly baseUrl: string;
  readonly key: string;
  readonly port: number;
  readonly secret: string;
}): Promise<void> {
  const response = await fetch(`${options.baseUrl}/v1/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Tracker',
      urlPatterns: [`https://api\\.test:${options.port}/.*`],
      headers: { Authorization: 'Bearer {{user.token}}' },
      userValues: { token: options.secret },
      actions: [{ name: 'create_item', method: 'POST', pathPattern: '/items', policy: 'ASK' }],
      defaultPolicy: 'ALWAYS',
    }),
  });
  assert.equal(response.status, 201, await response.text());
}

/**
 * Connects the test API for `userId` straight in storage as app "Tracker" (POST /items under `policy`), its token
 * the user's value `token`.
 */
export async function addTrackerApp(options: {
  readonly storage: Storage;
  readonly userId: string;
  readonly port: number;
  readonly token: string;
  readonly policy: 'ASK' | 'ALWAYS';
}): Promise<void> {
  const { storage, userId } = options;
  const app = await storage.connectedApps.create({
    userId,
    name: 'Tracker',
    urlPatterns: [`https://api\\.test:${options.port}/.*`],
    headers: { Authorization: 'Bearer {{user.token}}' },
    actions: [{ name: 'create_item', method: 'POST', pathPattern: '/items', policy: options.policy }],
  });
  await storage.userSecrets.set({ kind: 'connectedAppValues', ownerId: app.id, userId, value: { token: options.token } });
}

/**
 * A scripted model that answers every user message with a run_python call of `code` and, once the tool result is
 * back, with "Done."; each tool result is pushed to `toolResults`.
 */
export function startRunPythonModel(options: {
  readonly code: string;
  readonly toolResults: string[];
}): Promise<ScriptedModelServer> {
  const { code, toolResults } = options;
  return startScriptedModelServer({
    handler: (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        toolResults.push(last.toolResults[0]?.content ?? '');
        return [{ type: 'text', text: 'Done.' }];
      }
      return [
        { type: 'tool-call', id: `call_py_${toolResults.length}`, name: 'run_python', arguments: { code } },
      ];
    },
  });
}

/** Adds a "coder" persona offering run_python to the storage, returning its id. */
export async function addCoderPersona(storage: Storage): Promise<string> {
  const persona = await storage.personas.create({ name: 'coder', description: 'runs code' });
  await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: 'PythonTool' });
  return persona.id;
}
