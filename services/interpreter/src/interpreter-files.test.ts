import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { download, execute, postJson, upload } from './__fixtures__/interpreter-http.ts';
import { useInterpreterServer } from './__fixtures__/use-interpreter-server.ts';

describe('interpreter: files and sessions', () => {
  const server = useInterpreterServer({ limits: { maxConcurrent: 2 } });

  it('returns a matplotlib plot as a PNG file', async () => {
    const result = await execute(server.url, {
      code: 'import os\nimport matplotlib.pyplot as plt\nos.makedirs("plots")\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.savefig("plots/square.png")',
    });
    assert.equal(result.exit_code, 0, result.stderr);
    assert.equal(result.files.length, 1);
    const [file] = result.files;
    assert.equal(file?.path, 'plots/square.png');
    assert.equal(file?.kind, 'created');
    const bytes = await download(server.url, file?.file_id ?? '');
    assert.equal(bytes.length, file?.size);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('processes an uploaded CSV with pandas and returns the new CSV; unchanged inputs are not returned', async () => {
    const csvId = await upload(server.url, 'sales.csv', 'region,amount\nnorth,10\nsouth,5\nnorth,7\n');
    const notesId = await upload(server.url, 'notes.txt', 'keep me');
    const result = await execute(server.url, {
      code: [
        'import pandas as pd',
        "frame = pd.read_csv('data/sales.csv')",
        "totals = frame.groupby('region')['amount'].sum()",
        "totals.to_csv('totals.csv')",
        "open('notes.txt', 'a').write(' edited')",
        'int(totals.sum())',
      ].join('\n'),
      files: [
        { path: 'data/sales.csv', file_id: csvId },
        { path: 'notes.txt', file_id: notesId },
      ],
    });
    assert.equal(result.exit_code, 0, result.stderr);
    assert.equal(result.stdout, '22\n');
    const byPath = Object.fromEntries(result.files.map((file) => [file.path, file]));
    assert.deepEqual(Object.keys(byPath).sort(), ['notes.txt', 'totals.csv']);
    assert.equal(byPath['notes.txt']?.kind, 'modified');
    assert.equal(byPath['totals.csv']?.kind, 'created');
    assert.equal(
      (await download(server.url, byPath['totals.csv']?.file_id ?? '')).toString(),
      'region,amount\nnorth,17\nsouth,5\n',
    );
    // The stored upload itself is untouched by the run.
    assert.equal((await download(server.url, notesId)).toString(), 'keep me');
  });

  it('deletes files, and answers 404 for them afterwards', async () => {
    const fileId = await upload(server.url, 'gone.txt', 'bye');
    assert.equal((await fetch(`${server.url}/v1/files/${fileId}`, { method: 'DELETE' })).status, 204);
    assert.equal((await fetch(`${server.url}/v1/files/${fileId}`)).status, 404);
    const { status, json } = await postJson(server.url, '/v1/execute', {
      code: 'print(1)',
      files: [{ path: 'gone.txt', file_id: fileId }],
    });
    assert.equal(status, 404);
    assert.equal(json.error.code, 'file_not_found');
  });

  it('never returns a symbolic link target from the host', async () => {
    const result = await execute(server.url, {
      code: "import os\nos.symlink('/etc/hostname', 'host.txt')\nos.symlink('/usr', 'usr-link')\nprint('linked')",
    });
    assert.equal(result.stdout, 'linked\n');
    assert.deepEqual(result.files, []);
  });

  it('keeps executions that run at the same time apart', async () => {
    const writer = execute(server.url, {
      code: "import time\nopen('secret-a.txt', 'w').write('a')\ntime.sleep(1.5)\nimport os\nsorted(os.listdir('.'))",
    });
    const reader = execute(server.url, {
      code: [
        'import os, time',
        'time.sleep(0.5)',
        "found = [os.path.join(root, name) for top in ['/workspace', '/tmp', '/sandbox', '/dev/shm']",
        '         for root, _, names in os.walk(top) for name in names]',
        "print(sorted(os.listdir('/workspace')), [path for path in found if 'secret' in path])",
        "print(len([pid for pid in os.listdir('/proc') if pid.isdigit()]))",
      ].join('\n'),
    });
    const [writerResult, readerResult] = await Promise.all([writer, reader]);
    assert.equal(writerResult.stdout, "['secret-a.txt']\n");
    const [listing, processes] = readerResult.stdout.trim().split('\n');
    assert.equal(listing, '[] []');
    // Only bwrap's init and the run itself are visible in the pid namespace.
    assert.ok(Number(processes) <= 3, `saw ${processes} processes`);
  });

  it('keeps files across the commands of a session, apart from executions and other sessions', async () => {
    const first = await postJson(server.url, '/v1/sessions', { ttl_seconds: 60 });
    const second = await postJson(server.url, '/v1/sessions', { ttl_seconds: 60 });
    assert.equal(first.status, 201);
    assert.match(first.json.session_id, /^[0-9a-f-]{36}$/);
    assert.ok(first.json.expires_at > Date.now() / 1000);
    const bash = (sessionId: string, command: string) =>
      postJson(server.url, `/v1/sessions/${sessionId}/bash`, { command, timeout_ms: 10_000 });
    const wrote = await bash(
      first.json.session_id,
      'echo session-data > kept.txt && mkdir -p deep && echo ok',
    );
    assert.deepEqual(wrote.json, {
      stdout: 'ok\n',
      stderr: '',
      exit_code: 0,
      timed_out: false,
      duration_ms: wrote.json.duration_ms,
    });
    const read = await bash(first.json.session_id, 'cat kept.txt; python3 -c "print(2 + 3)"');
    assert.equal(read.json.stdout, 'session-data\n5\n');
    const other = await bash(second.json.session_id, 'ls -A /workspace | wc -l');
    assert.equal(other.json.stdout, '0\n');
    const execution = await execute(server.url, { code: "import os\nos.listdir('/workspace')" });
    assert.equal(execution.stdout, '[]\n', execution.stderr);
    const failing = await bash(first.json.session_id, 'echo oops >&2; exit 3');
    assert.equal(failing.json.exit_code, 3);
    assert.equal(failing.json.stderr, 'oops\n');
    assert.equal(
      (await fetch(`${server.url}/v1/sessions/${first.json.session_id}`, { method: 'DELETE' })).status,
      204,
    );
    const afterDelete = await bash(first.json.session_id, 'true');
    assert.equal(afterDelete.status, 404);
    assert.equal(afterDelete.json.error.code, 'session_not_found');
    await fetch(`${server.url}/v1/sessions/${second.json.session_id}`, { method: 'DELETE' });
  });

  it('stages files into a new session', async () => {
    const fileId = await upload(server.url, 'repo.txt', 'staged content');
    const created = await postJson(server.url, '/v1/sessions', {
      ttl_seconds: 60,
      files: [{ path: 'src/repo.txt', file_id: fileId }],
    });
    const read = await postJson(server.url, `/v1/sessions/${created.json.session_id}/bash`, {
      command: 'cat src/repo.txt',
    });
    assert.equal(read.json.stdout, 'staged content');
    await fetch(`${server.url}/v1/sessions/${created.json.session_id}`, { method: 'DELETE' });
  });

  it('times out a session command and ends a session at its TTL', async () => {
    const created = await postJson(server.url, '/v1/sessions', { ttl_seconds: 1 });
    const slow = await postJson(server.url, `/v1/sessions/${created.json.session_id}/bash`, {
      command: 'sleep 30',
      timeout_ms: 300,
    });
    assert.equal(slow.json.timed_out, true);
    assert.equal(slow.json.exit_code, null);
    let status = 200;
    for (let attempt = 0; attempt < 100 && status !== 404; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (
        await postJson(server.url, `/v1/sessions/${created.json.session_id}/bash`, { command: 'true' })
      ).status;
    }
    assert.equal(status, 404);
  });
});
