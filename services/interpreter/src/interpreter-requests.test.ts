import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getJson, postJson, readJson } from './__fixtures__/interpreter-http.ts';
import { useInterpreterServer } from './__fixtures__/use-interpreter-server.ts';
import { startInterpreterServer } from './interpreter-server.ts';

describe('interpreter: request validation and overload', () => {
  const server = useInterpreterServer({ limits: { maxFileBytes: 1024, maxConcurrent: 1, maxQueued: 1 } });

  const cases: Array<{ name: string; path: string; body: unknown; status: number; code: string }> = [
    { name: 'code missing', path: '/v1/execute', body: {}, status: 400, code: 'invalid_request' },
    {
      name: 'code not a string',
      path: '/v1/execute',
      body: { code: ['print(1)'] },
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'unknown field',
      path: '/v1/execute',
      body: { code: 'print(1)', shell: true },
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'timeout too long',
      path: '/v1/execute',
      body: { code: '1', timeout_ms: 600_000 },
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'timeout not an integer',
      path: '/v1/execute',
      body: { code: '1', timeout_ms: 1.5 },
      status: 400,
      code: 'invalid_request',
    },
    { name: 'body an array', path: '/v1/execute', body: [], status: 400, code: 'invalid_request' },
    {
      name: 'path escapes the workspace',
      path: '/v1/execute',
      body: {
        code: '1',
        files: [{ path: '../etc/passwd', file_id: '00000000-0000-4000-8000-000000000000' }],
      },
      status: 400,
      code: 'invalid_path',
    },
    {
      name: 'absolute path',
      path: '/v1/execute',
      body: { code: '1', files: [{ path: '/tmp/x', file_id: '00000000-0000-4000-8000-000000000000' }] },
      status: 400,
      code: 'invalid_path',
    },
    {
      name: 'file id not a uuid',
      path: '/v1/execute',
      body: { code: '1', files: [{ path: 'a.txt', file_id: '../../x' }] },
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'unknown file id',
      path: '/v1/execute',
      body: { code: '1', files: [{ path: 'a.txt', file_id: '00000000-0000-4000-8000-000000000000' }] },
      status: 404,
      code: 'file_not_found',
    },
    {
      name: 'ttl too long',
      path: '/v1/sessions',
      body: { ttl_seconds: 10 ** 9 },
      status: 400,
      code: 'invalid_request',
    },
    {
      name: 'unknown session',
      path: '/v1/sessions/00000000-0000-4000-8000-000000000000/bash',
      body: { command: 'ls' },
      status: 404,
      code: 'session_not_found',
    },
    {
      name: 'session id not a uuid',
      path: '/v1/sessions/abc/bash',
      body: { command: 'ls' },
      status: 400,
      code: 'invalid_id',
    },
    { name: 'unknown route', path: '/v2/execute', body: {}, status: 404, code: 'not_found' },
  ];
  for (const testCase of cases) {
    it(`answers ${testCase.status} ${testCase.code}: ${testCase.name}`, async () => {
      const { status, json } = await postJson(server.url, testCase.path, testCase.body);
      assert.equal(status, testCase.status);
      assert.equal(json.error.code, testCase.code);
      assert.equal(typeof json.error.message, 'string');
    });
  }

  it('answers 400 naming the header, never its value, for a malformed user, egress tag or egress token', async () => {
    const malformed: Array<[header: string, value: string, limit: number]> = [
      ['x-toolbus-user', 'two words', 200],
      ['x-toolbus-user', 'u'.repeat(201), 200],
      ['x-toolbus-egress-tag', 'tag\u00e9', 200],
      ['x-toolbus-egress-token', 't'.repeat(2049), 2048],
    ];
    const executeWith = (headers: Record<string, string>) =>
      fetch(`${server.url}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ code: 'print(1)' }),
      });
    for (const [header, value, limit] of malformed) {
      const response = await executeWith({ [header]: value });
      const json = await readJson(response);
      assert.equal(response.status, 400, header);
      assert.equal(json.error.code, 'invalid_request');
      assert.equal(json.error.message, `${header} must be 1 to ${limit} visible ASCII characters`);
    }
    // At the limit, a user is taken.
    const atLimit = await executeWith({ 'x-toolbus-user': 'u'.repeat(200) });
    assert.equal(atLimit.status, 200, JSON.stringify(await readJson(atLimit)));
  });

  it('answers 400 for malformed JSON, 415 for another content type, 405 for a wrong method', async () => {
    const malformed = await fetch(`${server.url}/v1/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"code": ',
    });
    assert.equal(malformed.status, 400);
    assert.equal((await readJson(malformed)).error.code, 'invalid_json');
    const text = await fetch(`${server.url}/v1/execute`, { method: 'POST', body: 'print(1)' });
    assert.equal(text.status, 415);
    const wrongMethod = await fetch(`${server.url}/v1/execute`);
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
  });

  it('answers 413 for an upload over the size limit and keeps nothing of it', async () => {
    const response = await fetch(`${server.url}/v1/files?filename=big.bin`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(4096),
    });
    assert.equal(response.status, 413);
    assert.equal((await readJson(response)).error.code, 'file_too_large');
  });

  it('stores a hostile filename in a safe form', async () => {
    const response = await fetch(
      `${server.url}/v1/files?filename=${encodeURIComponent('../../etc/pass"wd\r\n')}`,
      {
        method: 'POST',
        body: 'x',
      },
    );
    const json = await readJson(response);
    assert.equal(response.status, 201);
    assert.equal(json.filename, '_.._etc_pass_wd__');
    const downloaded = await fetch(`${server.url}/v1/files/${json.file_id}`);
    assert.equal(
      downloaded.headers.get('content-disposition'),
      "attachment; filename*=UTF-8''_.._etc_pass_wd__",
    );
  });

  it('queues up to the limit and answers 503 beyond it', async () => {
    const slow = { code: 'import time\ntime.sleep(1)\nprint("done")' };
    const results = await Promise.all([1, 2, 3].map(() => postJson(server.url, '/v1/execute', slow)));
    const statuses = results.map((result) => result.status).sort();
    assert.deepEqual(statuses, [200, 200, 503]);
    assert.equal(results.find((result) => result.status === 503)?.json.error.code, 'queue_full');
    const health = await getJson(`${server.url}/health`);
    assert.deepEqual(health.load, { running: 0, queued: 0 });
  });
});

describe('interpreter: a machine without a usable sandbox', () => {
  it('starts, says why on /health, and refuses executions with 503', async () => {
    const lines: string[] = [];
    const server = await startInterpreterServer({
      bubblewrapPath: '/nonexistent/bwrap',
      onLog: (line) => lines.push(line),
    });
    try {
      const health = await getJson(`${server.url}/health`);
      assert.equal(health.status, 'error');
      assert.match(health.reason, /bubblewrap not found at \/nonexistent\/bwrap/);
      assert.equal(health.isolation.sandbox, false);
      assert.match(lines.join('\n'), /sandbox error: bubblewrap not found/);
      const { status, json } = await postJson(server.url, '/v1/execute', { code: 'print(1)' });
      assert.equal(status, 503);
      assert.equal(json.error.code, 'sandbox_unavailable');
    } finally {
      await server.close();
    }
  });
});

describe('interpreter: several services with the same sandbox in one process', () => {
  it('the sandbox probe runs once; a later service reuses its result and still runs code isolated', async () => {
    const first = await startInterpreterServer({});
    const second = await startInterpreterServer({});
    try {
      const one = await getJson(`${first.url}/health`);
      const two = await getJson(`${second.url}/health`);
      assert.equal(one.isolation.sandbox, true);
      assert.equal(two.isolation.sandbox, true);
      // Whichever started first in this process ran it (an earlier test may have); the second never does.
      assert.equal(two.isolation.probe.ran, false);
      assert.ok(Date.parse(two.isolation.probe.at) <= Date.now());
      assert.deepEqual(two.isolation.python, one.isolation.python);
      const { status, json } = await postJson(second.url, '/v1/execute', {
        code: 'import os\nprint(os.getuid() != 0 or os.getpid() < 10, 6 * 7)',
      });
      assert.equal(status, 200);
      assert.equal(json.stdout, 'True 42\n');
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('a sandbox that cannot be made is probed again at every start, never remembered', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const server = await startInterpreterServer({ bubblewrapPath: '/nonexistent/bwrap' });
      try {
        const health = await getJson(`${server.url}/health`);
        assert.equal(health.isolation.sandbox, false);
        assert.equal(health.isolation.probe, undefined);
      } finally {
        await server.close();
      }
    }
  });
});
