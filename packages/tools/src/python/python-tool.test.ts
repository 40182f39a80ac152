import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';
import { CodeInterpreterClient, CodeInterpreterPool } from '@toolbus/sandbox';
import { buildBuiltInSkill, materializeSkills } from '@toolbus/skills';
import type { ChatFile, Tool } from '@toolbus/spec';
import { openStorage, type Storage } from '@toolbus/storage';
import { runTool } from '../__fixtures__/run-tool.ts';
import { InterpreterUploadCache } from './interpreter-upload-cache.ts';
import { createPythonTool } from './python-tool.ts';
import type { PythonToolFiles } from './python-tool-files.ts';

interface PythonResult {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  timed_out: boolean;
  generated_files: Array<{ filename: string; file_id: string }>;
  error: string | null;
  staging_notice?: string;
}

/** Stores a text file for the user and returns it as a chat attachment. */
async function storeChatFile(options: {
  readonly storage: Storage;
  readonly userId: string;
  readonly name: string;
  readonly mediaType: string;
  readonly text: string;
}): Promise<ChatFile> {
  const stored = await options.storage.files.put({
    userId: options.userId,
    name: options.name,
    mediaType: options.mediaType,
    content: new TextEncoder().encode(options.text),
  });
  return { id: stored.id, name: stored.name, mediaType: stored.mediaType, sizeBytes: stored.sizeBytes };
}

describe('python tool against the real interpreter, runner and storage', () => {
  let server: InterpreterServer;
  let storage: Storage;
  let userId: string;
  let files: PythonToolFiles;
  const requests: string[] = [];
  const userHeaders: { request: string; user: string | null }[] = [];
  let client: CodeInterpreterClient;

  before(async () => {
    server = await startInterpreterServer();
    storage = await openStorage({ path: ':memory:', secretKey: new Uint8Array(32).fill(7) });
    userId = (await storage.users.create({ email: 'analyst@example.test' })).id;
    files = {
      readContent: (fileId) => storage.files.readContent(fileId),
      saveGenerated: (file) => storage.files.put({ userId, ...file }),
    };
    // Records which endpoints the tool calls (to prove the upload cache); the requests still go to the service.
    const recordingFetch: typeof fetch = (input, init) => {
      const request = `${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`;
      requests.push(request);
      userHeaders.push({ request, user: new Headers(init?.headers).get('x-toolbus-user') });
      return fetch(input, init);
    };
    client = new CodeInterpreterClient({ baseUrl: server.url, fetch: recordingFetch });
  });
  after(async () => {
    await server.close();
  });

  async function run(tool: Tool, code: string, chatFiles: readonly ChatFile[] = []) {
    const { outcome, packets } = await runTool({
      tool,
      arguments: { code },
      callId: `call-${requests.length}`,
      placement: { turn: 1, tab: 0 },
      files: chatFiles,
      userId,
    });
    const result =
      outcome.status === 'success' ? (JSON.parse(outcome.response.llmFacing) as PythonResult) : undefined;
    return { outcome, packets, result: result as PythonResult };
  }

  const chatFile = (name: string, text: string) =>
    storeChatFile({ storage, userId, name, mediaType: 'text/csv', text });

  it('declares code as its only parameter and streams its argument deltas', () => {
    const tool = createPythonTool({ client, files });
    assert.equal(tool.name, 'run_python');
    assert.equal(tool.streamsArgumentDeltas, true);
    const definition = tool.definition();
    assert.deepEqual(Object.keys(definition.parameters.properties as object), ['code']);
    assert.deepEqual(definition.parameters.required, ['code']);
  });

  it('sends the user it runs for with every upload and run, so the service counts its files against that user', async () => {
    const tool = createPythonTool({ client, files });
    const before = userHeaders.length;
    const data = await chatFile('users.csv', 'name\nada\n');
    const { result } = await run(tool, "print(open('users.csv').read().strip())", [data]);
    assert.equal(result.stdout.trim(), 'name\nada');
    const sent = userHeaders
      .slice(before)
      .filter(({ request }) => /^POST \/v1\/(files|execute)/.test(request));
    assert.ok(
      sent.some(({ request }) => request === 'POST /v1/files'),
      'the chat file was uploaded',
    );
    assert.ok(
      sent.some(({ request }) => request.startsWith('POST /v1/execute')),
      'the code was run',
    );
    assert.deepEqual(
      sent.map(({ user }) => user),
      sent.map(() => userId),
    );
  });

  it('is offered while every service is down, and its call answers with the pool’s own words', async () => {
    const closedPorts: number[] = [];
    for (let index = 0; index < 2; index += 1) {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      closedPorts.push((closed.address() as AddressInfo).port);
      await new Promise<void>((resolve) => closed.close(() => resolve()));
    }
    const offline = new CodeInterpreterPool({
      baseUrls: closedPorts.map((port) => `http://127.0.0.1:${port}`),
      healthIntervalMs: 0,
    });
    await offline.checkHealth();
    const tool = createPythonTool({ client: offline, files });
    assert.equal(await tool.isAvailable({}), true);
    const { outcome } = await run(tool, 'print(1)');
    assert.equal(outcome.status, 'execution-error');
    assert.match(
      outcome.response.llmFacing,
      /none of the 2 code interpreter services answers right now .*; code cannot run until one is back/,
    );
    offline.close();
  });

  it('streams output as python-delta packets and returns stdout to the model', async () => {
    const tool = createPythonTool({ client, files });
    const { outcome, packets, result } = await run(tool, 'for i in range(3):\n    print("line", i)');
    assert.equal(outcome.status, 'success');
    assert.equal(result.stdout, 'line 0\nline 1\nline 2\n');
    assert.equal(result.exit_code, 0);
    assert.equal(result.error, null);
    const streamed = packets.flatMap((packet) =>
      packet.obj.type === 'python-delta' && packet.obj.stdout !== undefined ? [packet.obj.stdout] : [],
    );
    assert.equal(streamed.join(''), 'line 0\nline 1\nline 2\n');
    assert.ok(packets.every((packet) => packet.placement.turn === 1 && packet.placement.tab === 0));
  });

  it('returns an error in the code as a normal result the model can read', async () => {
    const tool = createPythonTool({ client, files });
    const { outcome, result } = await run(tool, 'import pandas as pd\npd.DataFrame({"a": [1]})["b"]');
    assert.equal(outcome.status, 'success');
    assert.equal(result.exit_code, 1);
    assert.match(result.error ?? '', /KeyError: 'b'/);
    assert.match(result.stderr, /Traceback/);
  });

  it('stages a chat CSV, and returns the plot and CSV it generates as stored files', async () => {
    const sales = await chatFile('sales 2026.csv', 'month,amount\njan,3\nfeb,5\nmar,4\n');
    const tool = createPythonTool({ client, files });
    const { outcome, packets, result } = await run(
      tool,
      [
        'import pandas as pd, matplotlib.pyplot as plt',
        "frame = pd.read_csv('sales 2026.csv')",
        "frame.plot(x='month', y='amount').get_figure().savefig('chart.png')",
        "frame.assign(double=frame.amount * 2).to_csv('doubled.csv', index=False)",
        'int(frame.amount.sum())',
      ].join('\n'),
      [sales],
    );
    assert.equal(result.stdout, '12\n', result.stderr);
    assert.deepEqual(result.generated_files.map((file) => file.filename).sort(), [
      'chart.png',
      'doubled.csv',
    ]);
    const rich = outcome.response.rich;
    assert.equal(rich?.type, 'python-execution');
    const generated = rich?.type === 'python-execution' ? rich.files : [];
    const png = generated.find((file) => file.name === 'chart.png');
    const csv = generated.find((file) => file.name === 'doubled.csv');
    assert.equal(png?.mediaType, 'image/png');
    assert.equal(csv?.mediaType, 'text/csv');
    const pngBytes = await storage.files.readContent(png?.fileId ?? '');
    assert.deepEqual([...(pngBytes ?? new Uint8Array()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const csvBytes = await storage.files.readContent(csv?.fileId ?? '');
    assert.equal(new TextDecoder().decode(csvBytes), 'month,amount,double\njan,3,6\nfeb,5,10\nmar,4,8\n');
    const filePacket = packets.find((packet) => packet.obj.type === 'python-delta' && packet.obj.files);
    assert.deepEqual(filePacket?.obj.type === 'python-delta' ? filePacket.obj.files : undefined, generated);
  });

  it('uploads the same file once across the runs of a turn, and again when its content changes', async () => {
    const cache = new InterpreterUploadCache();
    const tool = createPythonTool({ client, files, uploadCache: cache });
    const first = await chatFile('data.csv', 'x\n1\n2\n');
    const uploadsBefore = requests.filter((request) => request === 'POST /v1/files').length;
    for (let index = 0; index < 3; index += 1) {
      const { result } = await run(tool, "open('data.csv').read().count('\\n')", [first]);
      assert.equal(result.stdout, '3\n');
    }
    assert.equal(requests.filter((request) => request === 'POST /v1/files').length - uploadsBefore, 1);
    // A newer upload of the same name replaces the old one in the workspace and is uploaded once more.
    const second = await chatFile('data.csv', 'x\n1\n2\n3\n');
    const { result } = await run(tool, "open('data.csv').read().count('\\n')", [first, second]);
    assert.equal(result.stdout, '4\n');
    assert.equal(requests.filter((request) => request === 'POST /v1/files').length - uploadsBefore, 2);
    assert.equal(cache.size, 2);
  });

  it('stages files named in the code first within the caps, and tells the model what was left out', async () => {
    const older = await chatFile('older.csv', 'o\n');
    const newer = await chatFile('newer.csv', 'n\n');
    const hostile = await chatFile('../../etc/passwd', 'h\n');
    const tool = createPythonTool({ client, files, staging: { maxFiles: 2 } });
    const { result } = await run(
      tool,
      "import os\nprint(open('older.csv').read().strip())\nsorted(os.listdir('.'))",
      [older, newer, hostile],
    );
    assert.equal(result.stdout, "o\n['_.._etc_passwd', 'older.csv']\n");
    assert.match(
      result.staging_notice ?? '',
      /^1 of 3 session files were not staged due to per-execution limits \(2 files/,
    );
  });

  it('caps output for the model with a note, and keeps the limits note of the service', async () => {
    const tool = createPythonTool({ client, files, maxOutputCharacters: 100 });
    const { result } = await run(tool, 'print("y" * 5000)');
    assert.equal(result.stdout, `${'y'.repeat(100)}\n... [output truncated, 4901 characters omitted]`);
  });

  it('reports a timeout as a result with an explanation', async () => {
    const tool = createPythonTool({ client, files, executionTimeoutMs: 1000 });
    const { outcome, result } = await run(tool, 'import time\nprint("before", flush=True)\ntime.sleep(60)');
    assert.equal(outcome.status, 'success');
    assert.equal(result.timed_out, true);
    assert.equal(result.stdout, 'before\n');
    assert.match(result.error ?? '', /did not finish within 1000 ms/);
  });

  it('tells the model when the service itself fails', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const tool = createPythonTool({
      client: new CodeInterpreterClient({ baseUrl: `http://127.0.0.1:${port}` }),
      files,
    });
    const { outcome } = await run(tool, 'print(1)');
    assert.equal(outcome.status, 'execution-error');
    assert.match(outcome.response.llmFacing, /code interpreter is not working/);
  });
});

describe('python tool with skills, over a pool of two real interpreters', () => {
  let servers: InterpreterServer[];
  let pool: CodeInterpreterPool;
  let storage: Storage;
  let userId: string;
  let files: PythonToolFiles;
  let scratch: string;
  const streamedTo: string[] = [];

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'python-tool-skills-'));
    await chmod(scratch, 0o755);
    const skillsRoot = join(scratch, 'skills');
    await materializeSkills({
      skills: [await buildBuiltInSkill({ name: 'csv-analysis' })],
      targetDirectory: skillsRoot,
    });
    servers = await Promise.all([
      startInterpreterServer({ skillsRoot }),
      startInterpreterServer({ skillsRoot }),
    ]);
    pool = new CodeInterpreterPool({
      baseUrls: servers.map((server) => server.url),
      healthIntervalMs: 0,
      fetch: (input, init) => {
        const url = new URL(String(input));
        if (url.pathname === '/v1/execute/stream') streamedTo.push(url.origin);
        return fetch(input, init);
      },
    });
    storage = await openStorage({ path: ':memory:', secretKey: new Uint8Array(32).fill(7) });
    userId = (await storage.users.create({ email: 'skills@example.test' })).id;
    files = {
      readContent: (fileId) => storage.files.readContent(fileId),
      saveGenerated: (file) => storage.files.put({ userId, ...file }),
    };
  });
  after(async () => {
    pool.close();
    await Promise.all(servers.map((server) => server.close()));
    await rm(scratch, { recursive: true, force: true });
  });

  async function run(tool: Tool, code: string, chatFiles: readonly ChatFile[] = []): Promise<PythonResult> {
    const { outcome } = await runTool({
      tool,
      arguments: { code },
      callId: 'call-skills',
      placement: { turn: 1, tab: 0 },
      files: chatFiles,
      userId,
    });
    assert.ok(outcome.status === 'success', outcome.response.llmFacing);
    return JSON.parse(outcome.response.llmFacing) as PythonResult;
  }

  it("sends its skills with every run: the model runs a skill's script on the chat's CSV", async () => {
    const chat = await storeChatFile({
      storage,
      userId,
      name: 'orders.csv',
      mediaType: 'text/csv',
      text: 'city,amount\nOslo,3\nBergen,5\nOslo,4\n',
    });
    const tool = () => createPythonTool({ client: pool, files, skills: ['csv-analysis'] });
    assert.match(tool().definition().description, /\/workspace\/managed\/skills\/<name>\//);
    const code = [
      'import subprocess, sys',
      "script = '/workspace/managed/skills/csv-analysis/scripts/profile_csv.py'",
      "print(subprocess.run([sys.executable, script, 'orders.csv'], capture_output=True, text=True).stdout)",
    ].join('\n');
    // Two tools (two upload caches): the pool rotates the uploads, and each run goes where its file is, so the
    // runs land on both servers, and each mounts the skill.
    for (let index = 0; index < 2; index += 1) {
      const result = await run(tool(), code, [chat]);
      assert.match(result.stdout, /^# Profile: 3 rows, 2 columns/, result.stderr);
      assert.match(result.stdout, /\| city \| object \| 0 \| 2 \| Oslo \(2\), Bergen \(1\) \|/);
    }
    assert.deepEqual(
      streamedTo,
      servers.map((server) => server.url),
    );
  });

  it('renames a chat file that would take the name of the skills folder', async () => {
    const chat = await storeChatFile({
      storage,
      userId,
      name: 'managed',
      mediaType: 'text/plain',
      text: 'mine',
    });
    const tool = createPythonTool({ client: pool, files, skills: ['csv-analysis'] });
    const result = await run(
      tool,
      "import os\nprint(open('managed_1').read(), os.listdir('/workspace/managed/skills'))",
      [chat],
    );
    assert.equal(result.stdout, "mine ['csv-analysis']\n");
  });

  it('mounts nothing without skills', async () => {
    const tool = createPythonTool({ client: pool, files });
    assert.doesNotMatch(tool.definition().description, /managed/);
    const result = await run(tool, "import os\nos.path.exists('/workspace/managed/skills')");
    assert.equal(result.stdout, 'False\n');
  });
});
