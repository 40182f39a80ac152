import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { z } from 'zod';
import { RouteRegistry } from './route-registry.ts';
import { ServerError } from './server-error.ts';

/** A registry with one union-bodied route and one loose one, mounted on Hono with the server's error shape. */
function app(): Hono {
  const registry = new RouteRegistry();
  const body = z.object({
    name: z.string().optional(),
    endpoint: z.union([
      z.object({ transport: z.literal('stdio'), command: z.string() }),
      z.object({ transport: z.enum(['streamable-http', 'sse']), url: z.string() }),
    ]),
  });
  const response = { 200: { description: 'ok', schema: z.object({}) } };
  const access = { kind: 'public' } as const;
  registry.add(
    {
      method: 'post',
      path: '/closed',
      operationId: 'closed',
      summary: 's',
      tag: 't',
      access,
      body,
      responses: response,
    },
    ({ context }) => context.json({}),
  );
  registry.add(
    {
      method: 'post',
      path: '/loose',
      operationId: 'loose',
      summary: 's',
      tag: 't',
      access,
      body: z.looseObject({ id: z.string() }),
      responses: response,
    },
    ({ body, context }) => context.json(body),
  );
  const hono = new Hono();
  hono.onError((error, context) => {
    assert.ok(ServerError.isInstance(error), String(error));
    return context.json({ error: { field: error.field, message: error.message } }, error.status as 400);
  });
  registry.mount(hono, async () => undefined);
  return hono;
}

async function refusal(
  path: string,
  body: string,
): Promise<{ status: number; field?: string; message: string }> {
  const response = await app().request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const { error } = (await response.json()) as { error: { field?: string; message: string } };
  return { status: response.status, ...error };
}

test('an unknown field is refused naming it and the fields there are', async () => {
  const refused = await refusal(
    '/closed',
    JSON.stringify({ nmae: 'x', endpoint: { transport: 'sse', url: 'u' } }),
  );
  assert.equal(refused.status, 400);
  assert.equal(refused.field, 'body.nmae');
  assert.match(refused.message, /^body\.nmae: not a field of this request \(its fields: name, endpoint\)\.$/);
});

test('a union names the field of the member the value was meant for, or the values its discriminator takes', async () => {
  const meant = await refusal('/closed', JSON.stringify({ endpoint: { transport: 'stdio' } }));
  assert.equal(meant.field, 'body.endpoint.command');
  const unknown = await refusal('/closed', JSON.stringify({ endpoint: { transport: 'http', url: 'u' } }));
  assert.equal(unknown.field, 'body.endpoint.transport');
  assert.match(unknown.message, /expected one of "stdio", "streamable-http", "sse"/);
});

test('a NUL character anywhere in a body is refused naming where it is', async () => {
  const refused = await refusal('/loose', JSON.stringify({ id: 'a', nested: [{ deep: 'x\u0000y' }] }));
  assert.equal(refused.status, 400);
  assert.equal(refused.field, 'body.nested.0.deep');
  // An escaped backslash before "u0000" is text, not a NUL.
  const response = await app().request('/loose', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"id":"\\\\u0000"}',
  });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { id: '\\u0000' });
});

test('a deeply nested body is answered, not a stack overflow', async () => {
  const deep = `{"id":"a","x":${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}}`;
  const refused = await refusal('/loose', deep);
  assert.equal(refused.status, 400);
  assert.match(refused.field ?? '', /^body\.x\.0\.0\.0/);
});

test('a loose body keeps what it does not name; a closed one is documented as closed', () => {
  const registry = new RouteRegistry();
  registry.add(
    {
      method: 'post',
      path: '/c',
      operationId: 'c',
      summary: 's',
      tag: 't',
      access: { kind: 'public' },
      body: z.object({ a: z.string() }),
      responses: {},
    },
    ({ context }) => context.json({}),
  );
  const document = registry.openApiDocument({ title: 't', version: '1' }) as {
    paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>>;
  };
  const schema = document.paths['/c']?.post?.requestBody.content['application/json']?.schema as {
    additionalProperties?: boolean;
  };
  assert.equal(schema.additionalProperties, false);
});
