import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';
import type { SessionCommandStreamEvent } from './code-interpreter.ts';
import { CodeInterpreterClient } from './code-interpreter-client.ts';
import { CodeInterpreterError } from './code-interpreter-error.ts';

async function collect(
  events: AsyncIterable<SessionCommandStreamEvent>,
): Promise<SessionCommandStreamEvent[]> {
  const collected: SessionCommandStreamEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

describe('runSessionCommandStream against the real interpreter service', () => {
  let server: InterpreterServer;
  let client: CodeInterpreterClient;
  let sessionId: string;
  before(async () => {
    server = await startInterpreterServer();
    client = new CodeInterpreterClient({ baseUrl: server.url });
    sessionId = (await client.createSession({ ttl_seconds: 120 })).session_id;
  });
  after(async () => {
    await client.deleteSession(sessionId).catch(() => {});
    await server.close();
  });

  it('streams stdout and stderr as the command writes them, then the result; files persist in the session', async () => {
    const events = await collect(
      client.runSessionCommandStream(sessionId, {
        command: 'echo one; echo kept > notes.txt; sleep 0.3; echo two >&2; exit 3',
        timeout_ms: 10_000,
      }),
    );
    assert.deepEqual(events.slice(0, 2), [
      { type: 'output', stream: 'stdout', data: 'one\n' },
      { type: 'output', stream: 'stderr', data: 'two\n' },
    ]);
    const last = events.at(-1);
    assert.ok(last?.type === 'result');
    assert.equal(last.result.exit_code, 3);
    assert.equal(last.result.stdout, 'one\n');
    const next = await collect(client.runSessionCommandStream(sessionId, { command: 'cat notes.txt' }));
    assert.deepEqual(next[0], { type: 'output', stream: 'stdout', data: 'kept\n' });
  });

  it('kills a command at its timeout: timed_out, no exit code', async () => {
    const events = await collect(
      client.runSessionCommandStream(sessionId, { command: 'echo before; sleep 30', timeout_ms: 500 }),
    );
    const last = events.at(-1);
    assert.ok(last?.type === 'result');
    assert.equal(last.result.timed_out, true);
    assert.equal(last.result.exit_code, null);
    assert.equal(last.result.stdout, 'before\n');
  });

  it('an unknown session is an error, not a fallback to the batch endpoint', async () => {
    await assert.rejects(
      collect(client.runSessionCommandStream('00000000-0000-4000-8000-000000000000', { command: 'true' })),
      (error: unknown) => CodeInterpreterError.isInstance(error) && error.serviceCode === 'session_not_found',
    );
  });
});

describe('runSessionCommandStream on a server without the streaming route', () => {
  it('falls back to the batch endpoint (once) and replays its output as events', async () => {
    // A 0.4-level server (Onyx's code-interpreter service, see docs/decisions/differences-from-onyx.md): sessions
    // and /bash, no /bash/stream (FastAPI answers 404 {"detail"}).
    const received: string[] = [];
    const old = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push(request.url ?? '');
        const json = (status: number, value: unknown) =>
          response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (request.url === '/health') return json(200, { status: 'ok', version: '0.4.7' });
        if (request.url === '/v1/sessions/s1/bash') {
          const { command } = JSON.parse(body) as { command?: string };
          return json(200, { stdout: `ran ${command}\n`, stderr: '', exit_code: 0, timed_out: false });
        }
        return json(404, { detail: 'Not Found' });
      });
    });
    await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
    try {
      const client = new CodeInterpreterClient({ baseUrl: origin });
      const first = await collect(client.runSessionCommandStream('s1', { command: 'ls' }));
      assert.deepEqual(first[0], { type: 'output', stream: 'stdout', data: 'ran ls\n' });
      assert.equal(first.at(-1)?.type, 'result');
      await collect(client.runSessionCommandStream('s1', { command: 'pwd' }));
      assert.deepEqual(received, [
        '/health',
        '/v1/sessions/s1/bash/stream',
        '/v1/sessions/s1/bash',
        '/v1/sessions/s1/bash',
      ]);
    } finally {
      old.closeAllConnections();
      await new Promise<void>((resolve) => old.close(() => resolve()));
    }
  });
});
