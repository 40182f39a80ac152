import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CodeInterpreterError } from './code-interpreter-error.ts';
import { CodeInterpreterPool } from './code-interpreter-pool.ts';

// The service's own command line (`toolbus-interpreter`), run as a separate process so it can be killed with
// SIGKILL like a pod that dies: no close handler, no goodbye to the pool.
const interpreterBin = fileURLToPath(new URL('../../../services/interpreter/src/bin.ts', import.meta.url));

interface InterpreterProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
}

async function startInterpreterProcess(port = 0): Promise<InterpreterProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=development', interpreterBin, '--port', String(port)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`interpreter exited with ${code}: ${output}`)));
  });
  return { child, url, port: Number(new URL(url).port) };
}

async function kill(process: InterpreterProcess): Promise<void> {
  if (process.child.exitCode !== null || process.child.signalCode !== null) return;
  const exited = once(process.child, 'exit');
  process.child.kill('SIGKILL');
  await exited;
}

/** Polls the service's own `/health` until it reports a run in its sandbox. */
async function waitUntilRunning(url: string): Promise<void> {
  for (;;) {
    const health = (await (await fetch(`${url}/health`)).json()) as { load: { running: number } };
    if (health.load.running > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

function recordingFetch(log: string[]): typeof fetch {
  return (input, init) => {
    const url = new URL(String(input));
    log.push(`${init?.method ?? 'GET'} ${url.origin} ${url.pathname}`);
    return fetch(input, init);
  };
}

/**
 * A suite's interpreter processes and the pool over them, each request the pool sends logged in `requests`; the
 * suite's `after` closes the pool and kills every process still alive (a test may restart one in its slot).
 */
function usePoolOverProcesses() {
  const processes: InterpreterProcess[] = [];
  const requests: string[] = [];
  let pool: CodeInterpreterPool | undefined;
  after(async () => {
    pool?.close();
    await Promise.all(processes.map((process) => kill(process)));
  });
  /** Starts `count` processes and a pool over them (`healthIntervalMs` 0: no background checks). */
  const start = async (count: number, healthIntervalMs: number): Promise<CodeInterpreterPool> => {
    processes.push(...(await Promise.all(Array.from({ length: count }, () => startInterpreterProcess()))));
    pool = new CodeInterpreterPool({
      baseUrls: processes.map((process) => process.url),
      fetch: recordingFetch(requests),
      healthIntervalMs,
    });
    return pool;
  };
  return { processes, requests, start };
}

describe('CodeInterpreterPool over three interpreter processes, one killed with SIGKILL mid-run', () => {
  const { processes, requests, start } = usePoolOverProcesses();

  it('finishes every run on the survivors, reports the dead server’s session as lost, takes the server back when it returns, and says plainly when none answers', async () => {
    // Frequent background checks, so the restarted server is found again within the test.
    const pool = await start(3, 100);

    // A session on each server (placement rotates); the victim is the server holding the first one.
    const sessions = [await pool.createSession(), await pool.createSession(), await pool.createSession()];
    const victimIndex = Number(/^s(\d+)~/.exec(sessions[0]?.session_id ?? '')?.[1]);
    const victim = processes[victimIndex] as InterpreterProcess;
    const pinned = sessions[0]?.session_id as string;
    const survivorSession = sessions.find((session) => !session.session_id.startsWith(`s${victimIndex}~`));
    assert.ok(survivorSession);
    assert.equal((await pool.runSessionCommand(pinned, { command: 'echo kept > state.txt' })).exit_code, 0);
    await pool.runSessionCommand(survivorSession.session_id, { command: 'echo safe > state.txt' });

    // Six concurrent runs spread over the three servers (two each); the victim dies while its two are running.
    const runs = Array.from({ length: 6 }, (_, index) =>
      pool.execute({ code: `import time\ntime.sleep(1.5)\nprint(${index})` }),
    );
    await waitUntilRunning(victim.url);
    requests.length = 0;
    await kill(victim);
    const results = await Promise.all(runs);
    assert.deepEqual(
      results.map((result) => result?.stdout),
      ['0\n', '1\n', '2\n', '3\n', '4\n', '5\n'],
    );
    // The runs cut off on the victim were sent again, each to a survivor (a run whose connection breaks dies
    // with its sandbox, so running it again is safe).
    const retried = requests.filter((line) => line.endsWith(' /v1/execute'));
    assert.ok(retried.length >= 1, 'the victim’s runs were retried');
    assert.ok(retried.every((line) => !line.includes(victim.url)));
    assert.equal(pool.servers()[victimIndex]?.healthy, false);

    // New runs go to the survivors only.
    requests.length = 0;
    for (let index = 0; index < 4; index += 1) {
      assert.equal((await pool.execute({ code: `print(${index} * 2)` })).stdout, `${index * 2}\n`);
    }
    // (The background health checks still ask it: that is how it is found again.)
    assert.deepEqual(
      requests.filter((line) => line.includes(victim.url) && !line.endsWith(' /health')),
      [],
    );

    // The session pinned to the dead server is reported lost, in words that say what to do; the other lives on.
    await assert.rejects(pool.runSessionCommand(pinned, { command: 'cat state.txt' }), (error: unknown) => {
      assert.ok(CodeInterpreterError.isInstance(error));
      assert.equal(error.code, 'code_interpreter_unreachable');
      assert.equal(error.serviceCode, 'session_lost');
      assert.match(
        error.message,
        /not answering: the sandbox session and the files in its workspace were lost/,
      );
      assert.match(error.message, /create a new session/);
      return true;
    });
    const safe = await pool.runSessionCommand(survivorSession.session_id, { command: 'cat state.txt' });
    assert.equal(safe.stdout, 'safe\n');

    // The server comes back on its address: the background health check takes it back into rotation.
    processes[victimIndex] = await startInterpreterProcess(victim.port);
    await waitUntil(() => pool.servers()[victimIndex]?.healthy === true);
    requests.length = 0;
    await Promise.all(
      Array.from({ length: 3 }, () => pool.execute({ code: 'import time\ntime.sleep(0.3)\nprint(1)' })),
    );
    assert.equal(requests.filter((line) => line === `POST ${victim.url} /v1/execute`).length, 1);

    // Every server gone: the error says no service answers, not which socket failed.
    await Promise.all(processes.map((process) => kill(process)));
    await assert.rejects(pool.execute({ code: 'print(1)' }), (error: unknown) => {
      assert.ok(CodeInterpreterError.isInstance(error));
      assert.equal(error.code, 'code_interpreter_unreachable');
      assert.match(error.message, /none of the 3 code interpreter services answers right now/);
      return true;
    });
    assert.equal(await pool.isAvailable(), false);
  });
});

describe('CodeInterpreterPool: a service killed while a streamed run is in flight', () => {
  const { processes, requests, start } = usePoolOverProcesses();

  it('runs a stream that showed nothing again on the other service; one that showed output ends saying the service stopped and a rerun will probably work; the service is taken out at once', async () => {
    // No background checks: only the broken stream can take the victim out.
    const pool = await start(2, 0);
    const [first, second] = processes as [InterpreterProcess, InterpreterProcess];

    // Nothing shown yet: the run goes to the first service (the rotation starts there), which dies under it.
    const silent = (async () => {
      const events = [];
      for await (const event of pool.executeStream({ code: 'import time\ntime.sleep(1.5)\nprint("done")' }))
        events.push(event);
      return events;
    })();
    await waitUntilRunning(first.url);
    await kill(first);
    const silentEvents = await silent;
    // The output may arrive as one event or in pieces (stdout is a pipe): what counts is its text, then the result.
    assert.equal(silentEvents.at(-1)?.type, 'result');
    assert.ok(silentEvents.slice(0, -1).every((event) => event.type === 'output'));
    assert.equal(
      silentEvents
        .slice(0, -1)
        .map((event) => (event.type === 'output' ? event.data : ''))
        .join(''),
      'done\n',
    );
    assert.equal(pool.servers()[0]?.healthy, false, 'taken out at once, with no health check');
    assert.deepEqual(
      requests.filter((line) => line.endsWith(' /v1/execute/stream')),
      [`POST ${first.url} /v1/execute/stream`, `POST ${second.url} /v1/execute/stream`],
    );

    // Output already shown: the run cannot be taken back, so it ends in plain words.
    const events: { type: string; message?: string; data?: string }[] = [];
    let killed = false;
    let shown = '';
    for await (const event of pool.executeStream({
      code: 'import time\nprint("started", flush=True)\ntime.sleep(30)',
    })) {
      events.push(event);
      if (event.type === 'output') shown += event.data ?? '';
      // Kill only once the whole line is shown: under load 'started' and '\n' can arrive as two pieces.
      if (shown.endsWith('\n') && !killed) {
        killed = true;
        await kill(second);
      }
    }
    // The output shown (one event, or the same text in pieces), then the end in words: never a rerun.
    const types = events.map((event) => event.type);
    assert.equal(types.at(-1), 'error');
    assert.ok(types.length >= 2 && types.slice(0, -1).every((type) => type === 'output'), types.join(','));
    assert.equal(
      events
        .slice(0, -1)
        .map((event) => event.data ?? '')
        .join(''),
      'started\n',
    );
    const stopped = events.at(-1) as { message: string; serviceStopped?: boolean };
    assert.match(stopped.message, /^the code interpreter service stopped while the code was running/);
    assert.match(stopped.message, /running it again will probably work$/);
    assert.doesNotMatch(stopped.message, /terminated|stream broke/);
    assert.equal(stopped.serviceStopped, true);
    assert.equal(pool.servers()[1]?.healthy, false);
  });
});
