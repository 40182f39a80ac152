import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { execute, getJson, hostProcessesWith, postJson } from './__fixtures__/interpreter-http.ts';
import { useInterpreterServer } from './__fixtures__/use-interpreter-server.ts';

describe('interpreter: executing code in the real sandbox', () => {
  const server = useInterpreterServer({
    limits: { maxOutputBytes: 64 * 1024, workspaceBytes: 8 * 1024 * 1024 },
  });

  it('reports the sandbox it created on /health', async () => {
    const health = await getJson(`${server.url}/health`);
    assert.equal(health.status, 'ok', health.reason);
    assert.match(health.version, /^\d+\.\d+\.\d+$/);
    assert.equal(health.isolation.sandbox, true);
    assert.equal(health.isolation.network, 'none');
    assert.equal(health.isolation.perExecutionUid, true);
    assert.deepEqual(Object.keys(health.isolation.python.packages), ['numpy', 'pandas', 'matplotlib']);
    assert.equal(health.isolation.limits.workspace_bytes, 8 * 1024 * 1024);
  });

  it('limits the total size of the workspace, not only each file', async () => {
    const result = await execute(server.url, {
      code: [
        'written = 0',
        'try:',
        '    for index in range(4):',
        "        with open(f'part{index}.bin', 'wb') as handle:",
        "            handle.write(b'x' * 3 * 1024 * 1024)",
        '        written += 1',
        'except OSError as error:',
        "    print('refused after', written, 'errno', error.errno)",
      ].join('\n'),
    });
    assert.equal(result.stdout, 'refused after 2 errno 28\n');
  });

  it('prints output and the value of a final bare expression', async () => {
    const result = await execute(server.url, { code: 'print("hello")\nx = 20\nx * 2 + 2' });
    assert.equal(result.exit_code, 0);
    assert.equal(result.stdout, 'hello\n42\n');
    assert.equal(result.stderr, '');
    assert.equal(result.timed_out, false);
  });

  it('passes stdin to the code', async () => {
    const result = await execute(server.url, {
      code: 'import sys\nprint(sys.stdin.read().upper())',
      stdin: 'abc',
    });
    assert.equal(result.stdout, 'ABC\n');
  });

  it('returns an exception as a traceback that starts at the user code', async () => {
    const result = await execute(server.url, { code: 'def f():\n    return 1 / 0\n\nf()' });
    assert.equal(result.exit_code, 1);
    assert.match(result.stderr, /Traceback \(most recent call last\):/);
    assert.match(result.stderr, /line 2, in f/);
    assert.match(result.stderr, /ZeroDivisionError: division by zero/);
    assert.doesNotMatch(result.stderr, /runner\.py/);
  });

  it('reports a syntax error with its line', async () => {
    const result = await execute(server.url, { code: 'x = 1\nif x\n  print(x)' });
    assert.equal(result.exit_code, 1);
    assert.match(result.stderr, /SyntaxError/);
    assert.match(result.stderr, /line 2/);
  });

  it('kills an infinite loop and every process it started at the timeout', async () => {
    const marker = '987.654321';
    const result = await execute(server.url, {
      code: `import subprocess\nsubprocess.Popen(['sleep', '${marker}'])\nprint('started', flush=True)\nwhile True:\n    pass`,
      timeout_ms: 1500,
    });
    assert.equal(result.timed_out, true);
    assert.equal(result.exit_code, null);
    assert.equal(result.stdout, 'started\n');
    assert.deepEqual(hostProcessesWith(`sleep ${marker}`), []);
  });

  it('contains a memory hog with a MemoryError', async () => {
    const result = await execute(server.url, {
      code: 'blocks = []\ntry:\n    while True:\n        blocks.append(bytearray(64 * 1024 * 1024))\nexcept MemoryError:\n    print("refused after", len(blocks) * 64, "MiB")',
    });
    assert.equal(result.exit_code, 0, result.stderr);
    const mebibytes = Number(/refused after (\d+) MiB/.exec(result.stdout)?.[1]);
    assert.ok(mebibytes < 1024, `allocated ${mebibytes} MiB`);
  });

  it('contains a fork bomb at the process limit and leaves nothing behind', async () => {
    const counted = await execute(server.url, {
      code: 'import os, time\ncount = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        count += 1\nexcept OSError as error:\n    print("refused after", count, type(error).__name__)',
      timeout_ms: 10_000,
    });
    const forks = Number(/refused after (\d+) BlockingIOError/.exec(counted.stdout)?.[1]);
    assert.ok(forks > 0 && forks < 64, counted.stdout + counted.stderr);
    const marker = 'bomb-marker-31337';
    const bomb = await execute(server.url, {
      code: `import os, sys\nsys.argv[0] = '${marker}'\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass`,
      timeout_ms: 2000,
    });
    assert.equal(bomb.timed_out, true);
    const after = await execute(server.url, { code: 'print("still serving")' });
    assert.equal(after.stdout, 'still serving\n');
  });

  it('refuses network connections, even to the service on the host loopback', async () => {
    const port = new URL(server.url).port;
    const result = await execute(server.url, {
      code: `import socket\nprint([line.split(':')[0].strip() for line in open('/proc/net/dev').read().splitlines()[2:]])\ntry:\n    socket.create_connection(('127.0.0.1', ${port}), timeout=5)\n    print('connected')\nexcept OSError as error:\n    print(type(error).__name__)`,
    });
    assert.equal(result.stdout, "['lo']\nConnectionRefusedError\n");
  });

  it('refuses writes outside /workspace and /tmp, and shows no host files or secrets', async () => {
    process.env.TOOLBUS_TEST_SECRET = 'do-not-leak-7f3a';
    const result = await execute(server.url, {
      code: [
        'import os',
        "for path in ['/x', '/usr/x', '/etc/x', '/dev/x', '/workspace/../y', '/workspace/ok', '/tmp/ok']:",
        '    try:',
        "        open(path, 'w').write('x')",
        "        print(path, 'written')",
        '    except OSError as error:',
        "        print(path, 'refused', error.errno)",
        "print(sorted(os.listdir('/')))",
        "print(os.path.exists('/etc/passwd'), os.path.exists('/root'), os.path.exists('/home'))",
        'print(sorted(os.environ))',
        "print('do-not-leak' in str(os.environ))",
      ].join('\n'),
    });
    delete process.env.TOOLBUS_TEST_SECRET;
    const lines = result.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 7), [
      '/x refused 30',
      '/usr/x refused 30',
      '/etc/x refused 30',
      '/dev/x refused 30',
      '/workspace/../y refused 30',
      '/workspace/ok written',
      '/tmp/ok written',
    ]);
    assert.equal(
      lines[7],
      "['bin', 'dev', 'etc', 'lib', 'lib64', 'proc', 'sandbox', 'sbin', 'tmp', 'usr', 'workspace']",
    );
    assert.equal(lines[8], 'False False False');
    assert.doesNotMatch(lines[9] ?? '', /TOOLBUS|NODE|npm_/);
    assert.equal(lines[10], 'False');
  });

  it('caps output and says so', async () => {
    const result = await execute(server.url, { code: 'print("x" * 200_000)' });
    assert.ok(result.stdout.startsWith('x'.repeat(1000)));
    assert.match(result.stdout, /\[output truncated: \d+ bytes omitted\]\n$/);
    assert.ok(result.stdout.length < 64 * 1024 + 100);
  });

  it('streams output events in order, then the result', async () => {
    const response = await fetch(`${server.url}/v1/execute/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        code: 'import sys, time\nprint("one", flush=True)\ntime.sleep(0.2)\nprint("two", file=sys.stderr, flush=True)\ntime.sleep(0.2)\nprint("three")',
      }),
    });
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const events = (await response.text())
      .trim()
      .split('\n\n')
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        return {
          event: eventLine?.slice('event: '.length),
          data: JSON.parse(dataLine?.slice('data: '.length) ?? ''),
        };
      });
    // Unbuffered Python writes `print`'s text and newline separately; join neighbouring chunks of one stream.
    const sequence: string[] = [];
    for (const event of events) {
      const label = event.event === 'output' ? `${event.data.stream}:` : `${event.event}:`;
      const previous = sequence.at(-1);
      if (event.event === 'output' && previous?.startsWith(label))
        sequence[sequence.length - 1] += event.data.data;
      else sequence.push(label + (event.event === 'output' ? event.data.data : ''));
    }
    assert.deepEqual(sequence, ['stdout:one\n', 'stderr:two\n', 'stdout:three\n', 'result:']);
    assert.equal(events.at(-1)?.data.exit_code, 0);
    assert.equal(events.at(-1)?.data.stdout, 'one\nthree\n');
  });

  it('rejects a stream request with a 4xx before any event', async () => {
    const { status, json } = await postJson(server.url, '/v1/execute/stream', { code: 1 });
    assert.equal(status, 400);
    assert.equal(json.error.code, 'invalid_request');
  });
});
