import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Hono } from 'hono';
import { z } from 'zod';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';
import { checkedResponse } from './response-check.ts';
import { RouteRegistry } from './route-registry.ts';

/** A registry whose routes answer `answer`, declared as `{ id, tags: [{ name }] }` (200), mounted with the check. */
function appAnswering(answer: () => Response | unknown, status = 200): Hono {
  const registry = new RouteRegistry();
  registry.add(
    {
      method: 'get',
      path: '/thing',
      operationId: 'thing',
      summary: 's',
      tag: 't',
      access: { kind: 'public' },
      responses: {
        200: {
          description: 'ok',
          schema: z.object({ id: z.string(), tags: z.array(z.object({ name: z.string() })) }),
        },
        204: { description: 'nothing' },
      },
    },
    ({ context }) => {
      const value = answer();
      return value instanceof Response ? value : context.json(value, status as 200);
    },
  );
  const app = new Hono();
  registry.mount(app, async () => undefined, { checkResponses: true });
  return app;
}

async function answerOf(app: Hono): Promise<{ status: number; body: { error?: { message: string } } }> {
  const response = await app.request('/thing');
  return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
}

test('an answer of the declared shape passes unchanged', async () => {
  const answer = await answerOf(appAnswering(() => ({ id: 'a', tags: [{ name: 'x' }] })));
  assert.deepEqual(answer, { status: 200, body: { id: 'a', tags: [{ name: 'x' }] } });
  const empty = await appAnswering(() => new Response(null, { status: 204 })).request('/thing');
  assert.equal(empty.status, 204);
});

test('an undeclared field at any depth, a wrong type or an undeclared status fails, naming it', async () => {
  const nested = await answerOf(appAnswering(() => ({ id: 'a', tags: [{ name: 'x', secret: 1 }] })));
  assert.equal(nested.status, 500);
  assert.match(
    nested.body.error?.message ?? '',
    /GET \/thing 200: body\.tags\.0: undeclared field\(s\) secret/,
  );
  const wrongType = await answerOf(appAnswering(() => ({ id: 7, tags: [] })));
  assert.equal(wrongType.status, 500);
  assert.match(wrongType.body.error?.message ?? '', /body\.id/);
  const undeclared = await answerOf(appAnswering(() => ({ id: 'a', tags: [] }), 201));
  assert.equal(undeclared.status, 500);
  assert.match(undeclared.body.error?.message ?? '', /answered 201, which its definition does not declare/);
});

let server: ToolbusServer;
let http: ListeningServer;
before(async () => {
  const { storage } = await openTestStorage();
  server = await createServer({ storage, auth: 'local', defaultModel: 'openai:gpt-4.1-mini' });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http.close();
  await server.close();
});

test("the real server checks its answers under tests, against @toolbus/api-schema's shapes", async () => {
  // A route's real answer passes (the check is on: `node --test` sets NODE_TEST_CONTEXT).
  const created = await fetch(`${http.url}/v1/chats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'checked' }),
  });
  assert.equal(created.status, 201);
  const chat = (await created.json()) as Record<string, unknown>;
  // The same answer with a field the schema does not declare (a store's own column leaking out) is refused.
  const definition = server.routes.definitions.find((route) => route.operationId === 'createChat');
  assert.ok(definition);
  const leaked = await checkedResponse(definition, Response.json({ ...chat, userId: 'u1' }, { status: 201 }));
  assert.equal(leaked.status, 500);
  const { error } = (await leaked.json()) as { error: { code: string; message: string } };
  assert.equal(error.code, 'response_not_declared');
  assert.match(error.message, /undeclared field\(s\) userId/);
});
