// Many users' runs in one interpreter service, each with its own network identity at a standalone egress proxy:
// the real interpreter (bubblewrap) relaying each run's socket with the run's signed token, the real proxy
// verifying it, and a loopback HTTPS API that records which credential each request carried.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatEgressLogLine } from '@toolbus/egress';
import { deriveEgressTokenKey, mintEgressRunToken } from '@toolbus/egress/node';
import { CodeInterpreterClient } from '@toolbus/sandbox';
import { omitUndefined } from '@toolbus/spec';
import { openStorage, type Storage } from '@toolbus/storage';
import { addTrackerApp, startTestHttpsApi, type TestHttpsApi } from '../__fixtures__/egress-world.ts';
import { type StandaloneEgress, startStandaloneEgress } from '../__fixtures__/standalone-egress.ts';
import { remoteEgressTokens } from './remote-egress-tokens.ts';
import { storageEgressCatalogue } from './sandbox-egress.ts';

const secretKey = new Uint8Array(randomBytes(32));
const credentials: Record<string, string> = {};
const lines: string[] = [];
const tokensSeen: string[] = [];
let home: string;
let storage: Storage;
let api: TestHttpsApi;
let egress: StandaloneEgress;
let client: CodeInterpreterClient;
const users: string[] = [];

/** Python that calls the API, then looks everywhere it can for anything token-shaped, and prints both as JSON. */
function probeCode(port: number): string {
  return [
    'import json, os, socket, urllib.request, urllib.error',
    'out = {}',
    'try:',
    `    with urllib.request.urlopen(urllib.request.Request("https://api.test:${port}/items", method="POST", data=b"{}"), timeout=30) as r:`,
    '        out["status"] = r.status',
    'except urllib.error.HTTPError as error:',
    '    out["status"] = error.code',
    'except Exception as error:',
    '    out["status"] = "failed: " + str(error)',
    'seen = [json.dumps(dict(os.environ))]',
    'for path in ("/proc/self/environ", "/proc/1/environ", "/proc/1/cmdline", "/proc/self/cmdline"):',
    '    try:',
    '        seen.append(open(path, "rb").read().decode("latin1"))',
    '    except Exception as error:',
    '        seen.append(str(error))',
    'for top in ("/sandbox", "/workspace", "/tmp"):',
    '    for folder, _, names in os.walk(top):',
    '        for name in names:',
    '            try:',
    '                seen.append(open(os.path.join(folder, name), "rb").read(1 << 20).decode("latin1"))',
    '            except Exception as error:',
    '                seen.append(str(error))',
    'if os.path.exists("/sandbox/egress.sock"):',
    '    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
    '    s.settimeout(5)',
    '    s.connect("/sandbox/egress.sock")',
    '    s.sendall(b"GET http://api.test/ HTTP/1.1\\r\\nHost: api.test\\r\\n\\r\\n")',
    '    try:',
    '        seen.append(s.recv(65536).decode("latin1"))',
    '    except Exception as error:',
    '        seen.append(str(error))',
    'out["seen"] = "\\n".join(seen)',
    'print(json.dumps(out))',
  ].join('\n');
}

async function run(token: string | undefined): Promise<{ status: number | string; seen: string }> {
  if (token !== undefined) tokensSeen.push(token);
  const result = await client.execute(
    { code: probeCode(api.port), timeout_ms: 45_000 },
    omitUndefined({ egressToken: token }),
  );
  assert.equal(result.exit_code, 0, result.stderr);
  return JSON.parse(result.stdout.trim()) as { status: number | string; seen: string };
}

before(async () => {
  home = await mkdtemp(join(tmpdir(), 'toolbus-remote-egress-'));
  storage = await openStorage({
    path: ':memory:',
    secretKey: Buffer.from(secretKey).toString('base64'),
    environment: {},
  });
  api = await startTestHttpsApi(join(home, 'api-ca'));
  for (const email of ['alice@example.com', 'bob@example.com']) {
    const user = await storage.users.create({ email });
    users.push(user.id);
    credentials[user.id] = `tok-${email.split('@')[0]}-${randomBytes(4).toString('hex')}`;
    // Approvals at a standalone proxy are not wired here (no broker): the action is allowed outright.
    const token = credentials[user.id] ?? '';
    await addTrackerApp({ storage, userId: user.id, port: api.port, token, policy: 'ALWAYS' });
  }
  egress = await startStandaloneEgress({
    directory: home,
    api,
    secretKey,
    context: {
      ...storageEgressCatalogue(storage),
      logger: (event, fields) => lines.push(formatEgressLogLine(event, fields)),
    },
    onInterpreterLog: (line) => lines.push(line),
  });
  client = new CodeInterpreterClient({ baseUrl: egress.interpreter.url });
});

after(async () => {
  await egress.close();
  api.close();
  await storage.close();
  await rm(home, { recursive: true, force: true });
});

describe('run_python through one interpreter service and a standalone egress proxy', () => {
  it("gives two users' concurrent runs their own credentials, and the token never reaches the code", async () => {
    const [alice, bob] = users as [string, string];
    const mint = (userId: string) =>
      remoteEgressTokens({ storage, secretKey, userId, sessionId: `chat-${userId}` })({
        toolCallId: `call-${userId}`,
        timeoutMs: 45_000,
      });
    const [aliceToken, bobToken] = await Promise.all([mint(alice), mint(bob)]);
    assert.ok(aliceToken !== undefined && bobToken !== undefined);
    const before = api.received.length;
    const [aliceRun, bobRun] = await Promise.all([run(aliceToken), run(bobToken)]);
    assert.equal(aliceRun.status, 201, aliceRun.seen.slice(0, 500));
    assert.equal(bobRun.status, 201, bobRun.seen.slice(0, 500));
    const authorizations = api.received
      .slice(before)
      .map((request) => request.authorization)
      .sort();
    assert.deepEqual(authorizations, [`Bearer ${credentials[alice]}`, `Bearer ${credentials[bob]}`].sort());
    for (const [observed, token] of [
      [aliceRun.seen, aliceToken],
      [bobRun.seen, bobToken],
    ] as const) {
      // The probe did read its environment, the forwarder's and its files (so an empty result is not a pass).
      assert.match(observed, /HTTPS_PROXY/);
      assert.match(observed, /egress-forwarder/);
      assert.ok(!observed.includes(token), 'the token is nowhere the sandbox can look');
      assert.ok(!observed.includes(token.split('.')[2] ?? ''), 'nor its signature');
      assert.ok(
        !observed.includes(aliceToken.split('.')[2] ?? '') &&
          !observed.includes(bobToken.split('.')[2] ?? ''),
      );
    }
  });

  it('refuses a forged, an expired and a foreign token with a 407, and gives a run without one no network', async () => {
    const [alice, bob] = users as [string, string];
    const key = deriveEgressTokenKey(secretKey);
    const good = mintEgressRunToken({ key, identity: { userId: alice }, ttlMs: 60_000 });
    const [version, payload, signature] = good.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = `${version}.${Buffer.from(JSON.stringify({ ...claims, uid: bob })).toString('base64url')}.${signature}`;
    const expired = mintEgressRunToken({
      key,
      identity: { userId: bob },
      ttlMs: 1000,
      now: Date.now() - 5000,
    });
    const foreign = mintEgressRunToken({
      key: deriveEgressTokenKey(new Uint8Array(randomBytes(32))),
      identity: { userId: bob },
      ttlMs: 60_000,
    });
    const before = api.received.length;
    for (const token of [forged, expired, foreign]) {
      const result = await run(token);
      assert.match(String(result.status), /407/, String(result.status));
    }
    const bare = await run(undefined);
    assert.match(String(bare.status), /^failed: /);
    assert.doesNotMatch(bare.seen, /HTTPS_PROXY/, 'a run without a token is not given the proxy at all');
    assert.equal(api.received.length, before, 'nothing refused reached the API');
    assert.ok(lines.some((line) => line.includes('egress_token_refused')));
  });

  it('never writes a token into a log line of the proxy or the interpreter', () => {
    assert.ok(tokensSeen.length >= 5);
    const everything = lines.join('\n');
    assert.ok(lines.some((line) => line.includes('credential_injected')));
    for (const token of tokensSeen) {
      assert.ok(!everything.includes(token));
      assert.ok(!everything.includes(token.split('.')[2] ?? ''));
    }
    for (const value of Object.values(credentials)) assert.ok(!everything.includes(value));
  });
});
