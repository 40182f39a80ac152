// Adding an MCP server is checked at once (connect, list tools), and every way it can fail is a 4xx that says why:
// the outbound guard's refusal names its rule, never a 500 "see the log".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGuardedFetch } from '@toolbus/core/node';
import { startEverythingHttpServer } from '../../../mcp/src/__fixtures__/everything-server.ts';
import { startTestApi, type TestApi } from '../__fixtures__/test-api.ts';

let api: TestApi;
let mcp: { baseUrl: string; close(): Promise<void> };

before(async () => {
  mcp = await startEverythingHttpServer();
  api = await startTestApi({
    server: () => ({
      auth: 'local',
      defaultModel: 'openai:gpt-4.1',
      // Only the name `localhost` may reach loopback: 127.0.0.1 is refused by the guard's strict rule.
      fetch: createGuardedFetch({ level: 'strict', allow: ['localhost'] }) as typeof fetch,
    }),
  });
});
after(async () => {
  await api?.close();
  await mcp?.close();
});

interface Answer {
  readonly id: string;
  readonly tools: readonly { readonly name: string }[];
  readonly error: { readonly code: string; readonly field?: string; readonly message: string };
}

async function post(path: string, body: unknown) {
  const response = await fetch(`${api.http.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

const server = (url: string) => ({
  name: 'everything',
  endpoint: { transport: 'streamable-http', url },
  authType: 'none',
});

describe('checking an MCP server when it is added', { timeout: 60_000 }, () => {
  test('a reachable server: its tools are listed, nothing is stored', async () => {
    const url = `${mcp.baseUrl.replace('127.0.0.1', 'localhost')}/mcp`;
    const answer = await post('/v1/admin/mcp-servers/check', server(url));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.ok(answer.body.tools.some((tool) => tool.name === 'echo'));
    const list = (await (await fetch(`${api.http.url}/v1/admin/mcp-servers`)).json()) as {
      servers: unknown[];
    };
    assert.equal(list.servers.length, 0);
  });

  test('a loopback address the guard refuses: 422 with the rule as its code, in words', async () => {
    const answer = await post('/v1/admin/mcp-servers/check', server(`${mcp.baseUrl}/mcp`));
    assert.equal(answer.status, 422);
    assert.equal(answer.body.error.code, 'ssrf_blocked');
    assert.match(answer.body.error.message, /^body\.endpoint\.url: /);
    assert.match(
      answer.body.error.message,
      /outbound guard refused MCP server "everything" \(rule ssrf_blocked\)/,
    );
    assert.match(answer.body.error.message, /loopback/);
  });

  test('a port where nothing listens: 400 saying it could not connect', async () => {
    const answer = await post('/v1/admin/mcp-servers/check', server('http://localhost:9/mcp'));
    assert.equal(answer.status, 400);
    assert.match(answer.body.error.message, /Could not connect to MCP server "everything"/);
  });

  test('reviewing the tools of a stored server the guard refuses: 422 naming the rule, not a 500', async () => {
    const created = await post('/v1/admin/mcp-servers', { ...server(`${mcp.baseUrl}/mcp`), name: 'refused' });
    assert.equal(created.status, 201);
    const review = await fetch(`${api.http.url}/v1/admin/mcp-servers/${created.body.id}/tools`);
    assert.equal(review.status, 422);
    const body = (await review.json()) as { error: { message: string } };
    assert.match(body.error.message, /rule ssrf_blocked/);
  });
});
