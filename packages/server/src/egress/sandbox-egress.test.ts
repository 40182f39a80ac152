import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startInterpreterServer } from '@toolbus/interpreter';
import { openStorage, type Storage } from '@toolbus/storage';
import { hasConnectedApps, startSandboxEgress } from './sandbox-egress.ts';

let home: string;
let storage: Storage;
let userId: string;

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-cli-egress-'));
  storage = await openStorage({
    path: ':memory:',
    secretKey: randomBytes(32).toString('base64'),
    environment: {},
  });
  userId = (await storage.users.create({ email: 'me@example.com' })).id;
});
after(async () => {
  await storage.close();
  await rm(home, { recursive: true, force: true });
});

describe('the storage-backed sandbox egress proxy', () => {
  it('gives run_python network only through the proxy once an app is connected', async () => {
    assert.equal(await hasConnectedApps(storage, userId), false);
    await storage.connectedApps.create({
      userId,
      name: 'weather',
      urlPatterns: ['https://weather\\.example/.*'],
      headers: { 'X-Key': '{{org.key}}' },
      organizationValues: { key: 'CLI-EGRESS-SECRET' },
    });
    assert.equal(await hasConnectedApps(storage, userId), true);
    const lines: string[] = [];
    const egress = await startSandboxEgress({
      storage,
      userId,
      caDirectory: join(home, 'egress-ca'),
      approvals: { ask: async () => 'rejected' },
      onLog: (line) => lines.push(line),
    });
    const server = await startInterpreterServer({ port: 0, egress: egress.provider });
    try {
      const response = await fetch(`${server.url}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          code: [
            'import json, os, urllib.request, urllib.error',
            'try:',
            '    urllib.request.urlopen("http://localhost:9/", timeout=10)',
            'except urllib.error.HTTPError as error:',
            '    print(json.dumps([error.code, json.load(error)["error"], os.environ["HTTP_PROXY"]]))',
          ].join('\n'),
          timeout_ms: 30_000,
        }),
      });
      const result = (await response.json()) as { stdout: string; stderr: string };
      assert.deepEqual(
        JSON.parse(result.stdout.trim()),
        [403, 'destination_blocked', 'http://127.0.0.1:3128'],
        result.stderr,
      );
      assert.ok(lines.some((line) => line.startsWith('event=egress_denied_internal_destination')));
      assert.ok(!lines.join('\n').includes('CLI-EGRESS-SECRET'));
    } finally {
      await server.close();
      await egress.close();
    }
  });
});
