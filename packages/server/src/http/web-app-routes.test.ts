import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestApi, type TestApi } from '../__fixtures__/test-api.ts';

let web: TestApi;

before(async () => {
  const root = await mkdtemp(join(tmpdir(), 'toolbus-web-'));
  await mkdir(join(root, 'assets'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>toolbus</title><div id="root"></div>');
  await writeFile(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(join(root, '..', 'secret.txt'), 'not for the web');
  web = await startTestApi({
    server: () => ({
      auth: 'local',
      defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#none',
      webRoot: root,
    }),
  });
});
after(async () => {
  await web?.close();
});

test('the web app is served at /, its assets cached, any app route answered with index.html', async () => {
  const index = await fetch(`${web.http.url}/`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /text\/html/);
  assert.match(index.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.match(await index.text(), /<div id="root">/);
  const asset = await fetch(`${web.http.url}/assets/index-abc.js`);
  assert.equal(asset.status, 200);
  assert.match(asset.headers.get('content-type') ?? '', /javascript/);
  assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
  const appRoute = await fetch(`${web.http.url}/chats/some-chat`);
  assert.equal(appRoute.status, 200);
  assert.match(await appRoute.text(), /<div id="root">/);
});

test('the API keeps its own answers, and nothing outside the folder is served', async () => {
  const api = await fetch(`${web.http.url}/v1/nothing-here`);
  assert.equal(api.status, 404);
  assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'not_found');
  const health = await fetch(`${web.http.url}/health`);
  assert.equal(((await health.json()) as { ok: boolean }).ok, true);
  for (const path of [
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
  ]) {
    const response = await fetch(`${web.http.url}${path}`);
    assert.doesNotMatch(await response.text(), /not for the web/, path);
  }
  const missing = await fetch(`${web.http.url}/assets/missing.js`);
  assert.equal(missing.status, 404);
});
