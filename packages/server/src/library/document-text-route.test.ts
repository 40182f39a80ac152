// A citation's file:// link opens through the server: GET /v1/documents/text serves what the index holds for the
// caller's organisation, and GET /v1/session says whether a page is signed in without a 401.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chunkText, type DocumentSearchIndex, indexPaths, openDocumentIndex } from '@toolbus/tools';
import { startTestApi, type TestApi } from '../__fixtures__/test-api.ts';
import { joinChunks } from './document-text-route.ts';

const paragraph = (index: number) =>
  `Paragraph ${index}: refunds are paid back to the card within fourteen days, and every step of the way is logged so that the customer can follow it.`;
const longText = `# Refund policy\n\n${Array.from({ length: 30 }, (_, index) => paragraph(index)).join('\n\n')}`;

let folder: string;
let index: DocumentSearchIndex;
let api: TestApi;
let link: string;

before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'toolbus-document-text-'));
  await writeFile(join(folder, 'refunds.md'), longText);
  index = await openDocumentIndex({ path: join(folder, 'index.sqlite') });
  await indexPaths({ index, paths: [join(folder, 'refunds.md')] });
  link = pathToFileURL(join(folder, 'refunds.md')).href;
  // Another organisation's document: never served to this one.
  await index.forOrganization({ organizationId: 'another-org' }).upsert({
    sourceId: 'file:///elsewhere/secret.md',
    title: 'Secret',
    link: 'file:///elsewhere/secret.md',
    text: 'Another organisation only.',
    contentHash: 'x',
  });
  api = await startTestApi({
    server: () => ({
      auth: 'api-keys',
      defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
      documentIndex: index,
    }),
    adminEmail: 'admin@example.com',
  });
});
after(async () => {
  await api?.close();
  await index.close();
  await rm(folder, { recursive: true, force: true });
});

const get = (path: string, withKey = true) =>
  fetch(`${api.http.url}${path}`, withKey ? { headers: { authorization: `Bearer ${api.adminKey}` } } : {});

describe('GET /v1/documents/text', () => {
  test('joinChunks gives back the text chunkText cut, overlaps dropped', () => {
    const chunks = chunkText(longText, { maxChars: 300, overlapChars: 60 });
    assert.ok(chunks.length > 5);
    assert.equal(joinChunks(chunks), longText);
  });

  test("serves an indexed file's text by its file:// link, as inert plain text", async () => {
    assert.ok((await index.findByLink(link)).length > 1, 'the document has several chunks');
    const response = await get(`/v1/documents/text?link=${encodeURIComponent(link)}`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(response.headers.get('content-security-policy') ?? '', /sandbox/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    const text = await response.text();
    assert.ok(text.startsWith('Refund policy\n'), text.slice(0, 40));
    assert.ok(text.includes(longText), 'the whole text, once, in order');
  });

  test('a link not indexed in your organisation is a 404 naming query.link; no credential is a 401', async () => {
    const missing = await get(`/v1/documents/text?link=${encodeURIComponent('file:///etc/passwd')}`);
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { error: { message: string } }).error.message, /query\.link/);
    const other = await get(`/v1/documents/text?link=${encodeURIComponent('file:///elsewhere/secret.md')}`);
    assert.equal(other.status, 404);
    const anonymous = await get(`/v1/documents/text?link=${encodeURIComponent(link)}`, false);
    assert.equal(anonymous.status, 401);
  });
});

describe('GET /v1/session', () => {
  test('answers 200 either way: signed in with a key, not without one', async () => {
    const signedOut = await get('/v1/session', false);
    assert.equal(signedOut.status, 200);
    assert.deepEqual(await signedOut.json(), { signedIn: false });
    const wrongKey = await fetch(`${api.http.url}/v1/session`, {
      headers: { authorization: 'Bearer tb_wrong' },
    });
    assert.deepEqual(await wrongKey.json(), { signedIn: false });
    assert.deepEqual(await (await get('/v1/session')).json(), { signedIn: true });
  });
});
