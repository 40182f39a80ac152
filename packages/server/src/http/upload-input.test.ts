import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

let storage: Storage;
let http: ListeningServer;

before(async () => {
  ({ storage } = await openTestStorage());
  const server = await createServer({ storage, auth: 'local', defaultModel: 'openai:gpt-4.1' });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http.close();
  await storage.close();
});

async function upload(name: string | undefined, body: string, contentType?: string) {
  const query = name === undefined ? '' : `?name=${encodeURIComponent(name)}`;
  return fetch(`${http.url}/v1/files${query}`, {
    method: 'POST',
    ...(contentType === undefined ? {} : { headers: { 'content-type': contentType } }),
    body,
  });
}

async function refusal(response: Response): Promise<{ status: number; field?: string; message: string }> {
  const body = (await response.json()) as { error: { field?: string; message: string } };
  return { status: response.status, ...body.error };
}

test('a file name that is a path, or holds control characters, is refused naming query.name', async () => {
  for (const name of [
    '../../etc/passwd',
    'a/b.txt',
    '..\\..\\boot.ini',
    '..',
    '.',
    'a\u0000b',
    'tab\there',
  ]) {
    const refused = await refusal(await upload(name, 'hello', 'text/plain'));
    assert.equal(refused.status, 400, name);
    assert.equal(refused.field, 'query.name', name);
    assert.match(refused.message, /^query\.name: /);
  }
  const listed = (await (await fetch(`${http.url}/v1/files`)).json()) as { files: unknown[] };
  assert.deepEqual(listed.files, [], 'nothing was stored');
  assert.equal((await refusal(await upload(undefined, 'x', 'text/plain'))).field, 'query.name');
  assert.equal((await refusal(await upload('empty.txt', '', 'text/plain'))).field, 'body');
});

test('a Content-Type that is not a media type is refused; a good one is kept without its parameters', async () => {
  for (const contentType of ['text/html"', 'nonsense', 'text/', '/plain', 'text/plain plain']) {
    const refused = await refusal(await upload('a.txt', 'hello', contentType));
    assert.equal(refused.status, 400, contentType);
    assert.equal(refused.field, 'header.content-type', contentType);
  }
  const stored = await upload('日本 notes.txt', 'hello', 'Text/Plain; charset=utf-8');
  assert.equal(stored.status, 201);
  const file = (await stored.json()) as { id: string; name: string; mediaType: string };
  assert.equal(file.name, '日本 notes.txt');
  assert.equal(file.mediaType, 'text/plain');
  const download = await fetch(`${http.url}/v1/files/${file.id}/content`);
  assert.equal(await download.text(), 'hello');
  assert.equal(download.headers.get('x-content-type-options'), 'nosniff');
  assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename="[\w.-]+"$/);
});

test('the upload routes document their raw body in /openapi.json', async () => {
  const document = (await (await fetch(`${http.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
  };
  for (const path of ['/v1/files', '/v1/admin/skills/uploads', '/v1/admin/documents/uploads']) {
    const content = document.paths[path]?.post?.requestBody?.content;
    assert.ok(content, path);
    assert.deepEqual(Object.values(content)[0], { schema: { type: 'string', format: 'binary' } }, path);
  }
});

test('an empty upload is refused naming body, on every upload route', async () => {
  for (const path of [
    '/v1/files?name=a.txt',
    '/v1/admin/skills/uploads',
    '/v1/admin/documents/uploads?name=a.txt',
  ]) {
    const refused = await refusal(
      await fetch(`${http.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '',
      }),
    );
    assert.equal(refused.status, 400, path);
    assert.equal(refused.field, 'body', path);
  }
});
