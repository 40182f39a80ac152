import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer, type ToolbusServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let storage: Storage;
let server: ToolbusServer;
let chatId: string;
let http: ListeningServer;

// Over a real socket: local mode trusts loopback callers only.
const request = (path: string, init: RequestInit = {}) => fetch(`${http.url}${path}`, init);

before(async () => {
  ({ storage } = await openTestStorage());
  server = await createServer({ storage, auth: 'local', defaultModel: 'openai:gpt-4.1' });
  http = await listen(server, { port: 0 });
  const created = await request('/v1/chats', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  chatId = ((await created.json()) as { id: string }).id;
});
after(async () => {
  await http.close();
  await storage.close();
});

async function answer(path: string, init: RequestInit = {}) {
  const response = await request(path, init);
  const body = (await response.json().catch(() => ({}))) as { error?: { field?: string; message: string } };
  return { status: response.status, field: body.error?.field, message: body.error?.message ?? '' };
}

test('an unknown query parameter of a route whose query is described is a 400 naming query.<name>', async () => {
  const misspelt = await answer(`/v1/chats/${chatId}/turns/0/stream?aftre=3`);
  assert.equal(misspelt.status, 400);
  assert.equal(misspelt.field, 'query.aftre');
  assert.match(
    misspelt.message,
    /^query\.aftre: not a field of this request \(its fields: after, format\)\.$/,
  );

  const send = await answer(`/v1/chats/${chatId}/messages?strem=none`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'hello' }),
  });
  assert.equal(send.status, 400);
  assert.equal(send.field, 'query.strem');

  const listed = await answer('/v1/admin/documents/list?limt=5');
  assert.equal(listed.status, 400);
  assert.equal(listed.field, 'query.limt');
});

test('a known query parameter still works; routes whose clients add parameters stay tolerant', async () => {
  // Past the query check (no document index is configured here, so it is answered 501, not 400).
  const known = await request('/v1/admin/documents/list?limit=5');
  assert.equal(known.status, 501);
  // An authorization server's redirect carries parameters of its own (`iss`): the callback does not refuse them.
  const callback = await answer('/v1/mcp-oauth/callback?iss=https%3A%2F%2Fauth.example&state=unknown&code=c');
  assert.notEqual(callback.field, 'query.iss');
  // The useChat resume route describes no query: whatever a client adds is not a 400.
  const resume = await request(`/v1/ui/chat/${chatId}/stream?extra=1`);
  assert.notEqual(resume.status, 400);
});
