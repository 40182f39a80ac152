import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';
import type { ExecuteStreamEvent } from './code-interpreter.ts';
import { CodeInterpreterError } from './code-interpreter-error.ts';
import { CodeInterpreterPool } from './code-interpreter-pool.ts';

/** A fetch that records `METHOD origin path` of every request and still sends it to the real server. */
function recordingFetch(log: string[]): typeof fetch {
  return (input, init) => {
    const url = new URL(String(input));
    log.push(`${init?.method ?? 'GET'} ${url.origin} ${url.pathname}`);
    return fetch(input, init);
  };
}

const sleepThenPrint = "import time\ntime.sleep(0.3)\nprint('done')";

describe('CodeInterpreterPool over two real interpreter services', () => {
  let first: InterpreterServer;
  let second: InterpreterServer;
  let pool: CodeInterpreterPool;
  const requests: string[] = [];

  before(async () => {
    [first, second] = await Promise.all([startInterpreterServer(), startInterpreterServer()]);
    pool = new CodeInterpreterPool({
      baseUrls: [first.url, second.url],
      fetch: recordingFetch(requests),
      healthIntervalMs: 0,
    });
  });
  after(async () => {
    pool.close();
    await Promise.all([first.close(), second.close()]);
  });

  const executionsOn = (url: string): number =>
    requests.filter((line) => line === `POST ${url} /v1/execute`).length;

  it('spreads concurrent executions over both servers by requests in flight', async () => {
    requests.length = 0;
    const pending = Array.from({ length: 4 }, () => pool.execute({ code: sleepThenPrint }));
    assert.deepEqual(
      pool.servers().map((server) => server.inFlight),
      [2, 2],
    );
    const results = await Promise.all(pending);
    assert.deepEqual(
      results.map((result) => result.stdout),
      ['done\n', 'done\n', 'done\n', 'done\n'],
    );
    assert.equal(executionsOn(first.url), 2);
    assert.equal(executionsOn(second.url), 2);
    assert.deepEqual(
      pool.servers().map((server) => server.inFlight),
      [0, 0],
    );
  });

  it('downloads a file through the server that stored it, and runs code on files held by different servers', async () => {
    const prices = await pool.uploadFile({
      filename: 'prices.csv',
      content: 'item,price\napple,2\npear,3\n',
    });
    const counts = await pool.uploadFile({
      filename: 'counts.csv',
      content: 'item,count\napple,5\npear,1\n',
    });
    // Uploads rotate: the two files live on different servers, and their ids say which.
    assert.notEqual(prices.file_id.split('~')[0], counts.file_id.split('~')[0]);
    assert.equal(
      new TextDecoder().decode(await pool.downloadFile(prices.file_id)),
      'item,price\napple,2\npear,3\n',
    );
    const result = await pool.execute({
      code: [
        'import pandas',
        "merged = pandas.read_csv('prices.csv').merge(pandas.read_csv('counts.csv'))",
        "merged['total'] = merged.price * merged['count']",
        "merged.to_csv('totals.csv', index=False)",
        'print(int(merged.total.sum()))',
      ].join('\n'),
      files: [
        { path: 'prices.csv', file_id: prices.file_id },
        { path: 'counts.csv', file_id: counts.file_id },
      ],
    });
    assert.equal(result.stdout, '13\n', result.stderr);
    const totals = result.files.find((file) => file.path === 'totals.csv');
    assert.ok(totals);
    assert.equal(
      new TextDecoder().decode(await pool.downloadFile(totals.file_id)),
      'item,price,count,total\napple,2,5,10\npear,3,1,3\n',
    );
    await pool.deleteFile(prices.file_id);
    await assert.rejects(pool.downloadFile(prices.file_id), { status: 404, serviceCode: 'file_not_found' });
  });

  it('keeps a session on the server that created it', async () => {
    requests.length = 0;
    const session = await pool.createSession({ ttl_seconds: 60 });
    const origin = requests.find((line) => line.endsWith(' /v1/sessions'))?.split(' ')[1];
    assert.ok(origin);
    for (const command of ['echo one > notes.txt', 'echo two >> notes.txt', 'cat notes.txt']) {
      const result = await pool.runSessionCommand(session.session_id, { command });
      assert.equal(result.exit_code, 0, result.stderr);
      if (command === 'cat notes.txt') assert.equal(result.stdout, 'one\ntwo\n');
    }
    const commandOrigins = new Set(
      requests.filter((line) => line.endsWith('/bash')).map((line) => line.split(' ')[1]),
    );
    assert.deepEqual([...commandOrigins], [origin]);
    // Streamed commands go to the same server.
    const events = [];
    for await (const event of pool.runSessionCommandStream(session.session_id, { command: 'cat notes.txt' }))
      events.push(event);
    assert.deepEqual(events[0], { type: 'output', stream: 'stdout', data: 'one\ntwo\n' });
    const streamOrigins = new Set(
      requests.filter((line) => line.endsWith('/bash/stream')).map((line) => line.split(' ')[1]),
    );
    assert.deepEqual([...streamOrigins], [origin]);
    await pool.deleteSession(session.session_id);
  });

  it('answers ids it did not issue like a server answers unknown ids', async () => {
    await assert.rejects(pool.downloadFile('00000000-0000-4000-8000-000000000000'), (error: unknown) => {
      assert.ok(CodeInterpreterError.isInstance(error));
      assert.equal(error.status, 404);
      assert.equal(error.serviceCode, 'file_not_found');
      return true;
    });
    await assert.rejects(pool.runSessionCommand('s9~abc', { command: 'ls' }), {
      serviceCode: 'session_not_found',
    });
  });
});

describe('CodeInterpreterPool when a server goes away', () => {
  let survivor: InterpreterServer;
  let doomed: InterpreterServer;
  before(async () => {
    [survivor, doomed] = await Promise.all([startInterpreterServer(), startInterpreterServer()]);
  });
  after(async () => {
    await Promise.all([survivor.close(), doomed.close()]);
  });
  /** A pool over both servers, survivor first, that records every request in `requests`. */
  const survivorFirstPool = (requests: string[]) =>
    new CodeInterpreterPool({
      baseUrls: [survivor.url, doomed.url],
      fetch: recordingFetch(requests),
      healthIntervalMs: 0,
    });

  it('moves traffic to the other server, retrying once, while sessions stay on theirs', async () => {
    const requests: string[] = [];
    const pool = survivorFirstPool(requests);
    try {
      const kept = await pool.createSession();
      const lost = await pool.createSession();
      assert.ok(kept.session_id.startsWith('s0~'));
      assert.ok(lost.session_id.startsWith('s1~'));
      await pool.runSessionCommand(kept.session_id, { command: 'echo kept > state.txt' });

      await doomed.close();
      requests.length = 0;
      const results = [];
      for (let index = 0; index < 4; index += 1)
        results.push(await pool.execute({ code: `print(${index})` }));
      assert.deepEqual(
        results.map((result) => result.stdout),
        ['0\n', '1\n', '2\n', '3\n'],
      );
      // Exactly one attempt reached the closed server (the second call, by rotation): it failed to connect, the
      // server was marked down and the call retried on the survivor, which took every later call.
      assert.deepEqual(
        requests.filter((line) => line.includes(doomed.url)),
        [`POST ${doomed.url} /v1/execute`],
      );
      assert.equal(requests.filter((line) => line === `POST ${survivor.url} /v1/execute`).length, 4);
      assert.deepEqual(
        pool.servers().map((server) => server.healthy),
        [true, false],
      );

      // A stream that lands on the dead server before its first event is retried as well.
      const fresh = new CodeInterpreterPool({ baseUrls: [doomed.url, survivor.url], healthIntervalMs: 0 });
      const events: ExecuteStreamEvent[] = [];
      for await (const event of fresh.executeStream({ code: "print('streamed')" })) events.push(event);
      assert.deepEqual(events.at(-1)?.type, 'result');
      assert.deepEqual(
        fresh.servers().map((server) => server.healthy),
        [false, true],
      );
      fresh.close();

      const state = await pool.runSessionCommand(kept.session_id, { command: 'cat state.txt' });
      assert.equal(state.stdout, 'kept\n');
      // A session lives on one server: its commands are never moved (or retried) elsewhere.
      await assert.rejects(pool.runSessionCommand(lost.session_id, { command: 'ls' }), {
        code: 'code_interpreter_unreachable',
        serviceCode: 'session_lost',
      });
    } finally {
      pool.close();
    }
  });

  it('marks a server down on a failed health check and reports the pool degraded', async () => {
    const requests: string[] = [];
    const pool = survivorFirstPool(requests);
    try {
      const health = await pool.health();
      assert.equal(health.status, 'degraded');
      assert.match(health.reason ?? '', /1 of 2 servers are down/);
      assert.deepEqual(
        pool.servers().map((server) => server.healthy),
        [true, false],
      );
      assert.equal(await pool.isAvailable(), true);
      requests.length = 0;
      for (let index = 0; index < 2; index += 1) {
        assert.equal((await pool.execute({ code: 'print(7)' })).stdout, '7\n');
      }
      // Known down before the calls: none of them was even tried there.
      assert.deepEqual(requests, [`POST ${survivor.url} /v1/execute`, `POST ${survivor.url} /v1/execute`]);
    } finally {
      pool.close();
    }
  });

  it('reports a pool whose servers are all down as unavailable', async () => {
    const pool = new CodeInterpreterPool({ baseUrls: [doomed.url], healthIntervalMs: 0 });
    assert.equal(await pool.isAvailable(), false);
    assert.equal((await pool.health()).status, 'error');
    await assert.rejects(pool.execute({ code: '1' }), {
      code: 'code_interpreter_unreachable',
      message: /none of the 1 code interpreter services answers right now/,
    });
    pool.close();
  });

  it('retries once on another server when the first answers 503 queue_full (nothing ran there)', async () => {
    const busy = await startInterpreterServer({ limits: { maxConcurrent: 1, maxQueued: 1 } });
    const requests: string[] = [];
    const pool = new CodeInterpreterPool({
      baseUrls: [busy.url, survivor.url],
      fetch: recordingFetch(requests),
      healthIntervalMs: 0,
    });
    try {
      // Fill the busy server's slot and queue directly (not through the pool); wait until /health shows both.
      const occupying = [1, 2].map(() =>
        fetch(`${busy.url}/v1/execute`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code: 'import time\ntime.sleep(2)' }),
        }),
      );
      for (;;) {
        const health = (await (await fetch(`${busy.url}/health`)).json()) as {
          load: { running: number; queued: number };
        };
        if (health.load.running === 1 && health.load.queued === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const result = await pool.execute({ code: 'print("elsewhere")' });
      assert.equal(result.stdout, 'elsewhere\n');
      assert.deepEqual(requests, [`POST ${busy.url} /v1/execute`, `POST ${survivor.url} /v1/execute`]);
      // Busy is not broken: it stays in the pool.
      assert.deepEqual(
        pool.servers().map((server) => server.healthy),
        [true, true],
      );
      for (const response of await Promise.all(occupying)) await response.body?.cancel();
    } finally {
      pool.close();
      await busy.close();
    }
  });
});
