import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { spawnCli } from './__fixtures__/spawn-cli.ts';

const petstore = new URL('../../openapi/src/__fixtures__/petstore.yaml', import.meta.url);

describe('openapi add from a URL', () => {
  let home: string;
  let site: Server;
  let url: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolbus-openapi-url-'));
    const yaml = await readFile(petstore, 'utf8');
    site = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/yaml' });
      response.end(yaml);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(site.address() as { port: number }).port}/petstore.yaml`;
  });
  after(async () => {
    await new Promise((resolve) => site.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  test('goes through the guarded fetch: refused on a private address until allowed, then added', async () => {
    const env = { TOOLBUS_HOME: home };
    const refused = await spawnCli(['openapi', 'add', url], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^toolbus: .*(private|blocked|not allowed)/m);
    const missingKey = await spawnCli(['openapi', 'add', url, '--api-key-env', 'PETSTORE_KEY'], env);
    assert.equal(missingKey.code, 1);
    assert.match(missingKey.stderr, /--api-key-env names the variable PETSTORE_KEY, which is not set/);
    assert.equal((await spawnCli(['config', 'set', 'allowHosts', '127.0.0.1'], env)).code, 0);
    const added = await spawnCli(['openapi', 'add', url, '--name', 'pets'], env);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^Added "pets" to the persona "default": \d+ tool\(s\)\.$/m);
    const listed = await spawnCli(['openapi', 'list'], env);
    assert.match(listed.stdout, /^pets {2}\d+ operation\(s\)$/m);
    const removed = await spawnCli(['openapi', 'rm', 'pets'], env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match((await spawnCli(['openapi', 'list'], env)).stdout, /has no OpenAPI documents/);
  });
});
