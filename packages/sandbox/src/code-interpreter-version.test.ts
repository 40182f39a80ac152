import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { ToolbusError } from '@toolbus/spec';
import type { ExecuteStreamEvent } from './code-interpreter.ts';
import { CodeInterpreterClient } from './code-interpreter-client.ts';
import { CodeInterpreterVersionError } from './code-interpreter-version-error.ts';

/** A tiny real HTTP server that acts like an old interpreter: /health, batch /v1/execute, nothing else. */
async function startOldServer(
  health: Record<string, unknown>,
): Promise<{ url: string; requests: string[]; bodies: string[]; server: Server }> {
  const requests: string[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    // Keeps each POST body beside its request line, to show what the client sent.
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (chunks.length > 0) bodies.push(Buffer.concat(chunks).toString('utf8'));
      answer();
    });
    const answer = (): void => {
      if (request.url === '/health') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(health));
      } else if (request.url === '/v1/execute' && request.method === 'POST') {
        const result = {
          stdout: 'out\n',
          stderr: 'warn\n',
          exit_code: 0,
          timed_out: false,
          duration_ms: 5,
          files: [],
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      } else {
        // FastAPI's answer for a route it does not have.
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, bodies, server };
}

async function collect(stream: AsyncIterable<ExecuteStreamEvent>): Promise<ExecuteStreamEvent[]> {
  const events: ExecuteStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('CodeInterpreterClient version gate against an old server', () => {
  const servers: Server[] = [];
  after(() => {
    for (const server of servers) server.close();
  });

  it('fails fast on session methods without sending them, and reads /health once', async () => {
    const old = await startOldServer({ status: 'ok', version: 'v0.1.0-beta+build' });
    servers.push(old.server);
    const client = new CodeInterpreterClient({ baseUrl: old.url });
    await assert.rejects(client.createSession({ ttl_seconds: 60 }), (error: unknown) => {
      assert.ok(CodeInterpreterVersionError.isInstance(error));
      assert.ok(ToolbusError.isInstance(error));
      assert.equal(error.code, 'code_interpreter_version');
      assert.equal(error.method, 'createSession');
      assert.equal(error.serverVersion, 'v0.1.0-beta+build');
      assert.equal(error.requiredVersion, '0.4.0');
      assert.match(
        error.message,
        /createSession needs code interpreter 0\.4\.0 or newer; the server reports v0\.1\.0/,
      );
      return true;
    });
    await assert.rejects(
      client.runSessionCommand('00000000-0000-4000-8000-000000000000', { command: 'ls' }),
      {
        method: 'runSessionCommand',
      },
    );
    await assert.rejects(client.deleteSession('00000000-0000-4000-8000-000000000000'), {
      method: 'deleteSession',
    });
    assert.equal(await client.supports('execute', 'uploadFile'), true);
    assert.equal(await client.supports('execute', 'createSession'), false);
    assert.equal((await client.execute({ code: 'print(1)' })).stdout, 'out\n');
    assert.deepEqual(old.requests, ['GET /health', 'POST /v1/execute']);
  });

  it('streams by replaying the batch endpoint when the version is too old for streaming', async () => {
    const old = await startOldServer({ status: 'ok', version: '0.3.9' });
    servers.push(old.server);
    const client = new CodeInterpreterClient({ baseUrl: old.url });
    const events = await collect(client.executeStream({ code: 'print(1)' }));
    assert.deepEqual(
      events.map((event) => (event.type === 'output' ? `${event.stream}:${event.data}` : event.type)),
      ['stdout:out\n', 'stderr:warn\n', 'result'],
    );
    assert.deepEqual(old.requests, ['GET /health', 'POST /v1/execute']);
  });

  it('falls back to batch on a 404 for the stream route, and does not try the route again', async () => {
    const old = await startOldServer({ status: 'ok', version: '0.4.7' });
    servers.push(old.server);
    const client = new CodeInterpreterClient({ baseUrl: old.url });
    assert.equal((await collect(client.executeStream({ code: 'print(1)' }))).at(-1)?.type, 'result');
    assert.equal((await collect(client.executeStream({ code: 'print(1)' }))).at(-1)?.type, 'result');
    assert.deepEqual(old.requests, [
      'GET /health',
      'POST /v1/execute/stream',
      'POST /v1/execute',
      'POST /v1/execute',
    ]);
  });

  it('treats a server without a version as 0.0.0', async () => {
    const old = await startOldServer({ status: 'ok' });
    servers.push(old.server);
    const client = new CodeInterpreterClient({ baseUrl: old.url });
    assert.equal(await client.serverVersion(), '0.0.0');
    await assert.rejects(client.createSession(), { serverVersion: '0.0.0', requiredVersion: '0.4.0' });
  });

  it('refuses skills before sending on a 1.0.0 server, and leaves an empty list out', async () => {
    const old = await startOldServer({ status: 'ok', version: '1.0.0' });
    servers.push(old.server);
    const client = new CodeInterpreterClient({ baseUrl: old.url });
    const expected = (method: string) => (error: unknown) => {
      assert.ok(CodeInterpreterVersionError.isInstance(error));
      assert.equal(error.method, `${method} with skills`);
      assert.equal(error.serverVersion, '1.0.0');
      assert.equal(error.requiredVersion, '1.1.0');
      return true;
    };
    await assert.rejects(client.execute({ code: '1', skills: ['csv-analysis'] }), expected('execute'));
    await assert.rejects(
      collect(client.executeStream({ code: '1', skills: ['csv-analysis'] })),
      expected('executeStream'),
    );
    await assert.rejects(client.createSession({ skills: ['csv-analysis'] }), expected('createSession'));
    assert.equal(await client.supports('execute', 'skills'), false);
    assert.equal((await client.execute({ code: 'print(1)', skills: [] })).stdout, 'out\n');
    assert.deepEqual(old.requests, ['GET /health', 'POST /v1/execute']);
    assert.deepEqual(old.bodies, ['{"code":"print(1)"}']);
  });
});
