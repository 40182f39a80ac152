import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type InterpreterServer, startInterpreterServer } from '@toolbus/interpreter';
import { ToolbusError } from '@toolbus/spec';
import type { ExecuteStreamEvent } from './code-interpreter.ts';
import { CodeInterpreterClient } from './code-interpreter-client.ts';
import { CodeInterpreterError } from './code-interpreter-error.ts';

describe('CodeInterpreterClient against the real interpreter service', () => {
  let server: InterpreterServer;
  let client: CodeInterpreterClient;
  before(async () => {
    server = await startInterpreterServer();
    client = new CodeInterpreterClient({ baseUrl: `${server.url}/` });
  });
  after(async () => {
    await server.close();
  });

  it('reads health, version and what the server supports', async () => {
    const health = await client.health();
    assert.equal(health.status, 'ok');
    assert.equal(await client.serverVersion(), health.version);
    assert.equal(await client.isAvailable(), true);
    assert.equal(await client.supports('execute', 'executeStream', 'createSession'), true);
  });

  it('executes code and returns output, exit code and files', async () => {
    const result = await client.execute({ code: 'open("out.txt", "w").write("hi")\nprint("done")\n6 * 7' });
    assert.equal(result.stdout, 'done\n42\n');
    assert.equal(result.exit_code, 0);
    assert.deepEqual(
      result.files.map((file) => [file.path, file.kind]),
      [['out.txt', 'created']],
    );
    assert.equal(new TextDecoder().decode(await client.downloadFile(result.files[0]?.file_id ?? '')), 'hi');
  });

  it('streams output events in order and ends with the result', async () => {
    const events: ExecuteStreamEvent[] = [];
    for await (const event of client.executeStream({
      code: 'import sys\nprint("a", flush=True)\nprint("b", file=sys.stderr, flush=True)\nraise SystemExit(3)',
    })) {
      events.push(event);
    }
    const last = events.at(-1);
    assert.equal(last?.type, 'result');
    assert.equal(last?.type === 'result' ? last.result.exit_code : undefined, 3);
    const output = events.flatMap((event) =>
      event.type === 'output' ? [`${event.stream}:${event.data}`] : [],
    );
    assert.deepEqual(output.join('').replaceAll('stdout:', '').replaceAll('stderr:', ''), 'a\nb\n');
    assert.ok(
      output.findIndex((line) => line.startsWith('stderr')) >
        output.findIndex((line) => line.startsWith('stdout')),
    );
  });

  it('uploads a file, uses it in a run, and deletes it', async () => {
    const uploaded = await client.uploadFile({ filename: 'numbers.csv', content: 'n\n1\n2\n3\n' });
    assert.equal(uploaded.size, 8);
    const result = await client.execute({
      code: 'import pandas as pd\nint(pd.read_csv("numbers.csv")["n"].sum())',
      files: [{ path: 'numbers.csv', file_id: uploaded.file_id }],
    });
    assert.equal(result.stdout, '6\n');
    await client.deleteFile(uploaded.file_id);
    await assert.rejects(client.downloadFile(uploaded.file_id), (error: unknown) => {
      assert.ok(CodeInterpreterError.isInstance(error));
      assert.ok(ToolbusError.isInstance(error));
      assert.equal(error.code, 'code_interpreter_http');
      assert.equal(error.status, 404);
      assert.equal(error.serviceCode, 'file_not_found');
      return true;
    });
  });

  it('runs commands in a session that keeps its files', async () => {
    const session = await client.createSession({ ttl_seconds: 60 });
    const first = await client.runSessionCommand(session.session_id, {
      command: 'echo 1 > count && cat count',
    });
    assert.equal(first.stdout, '1\n');
    const second = await client.runSessionCommand(session.session_id, {
      command: 'echo $(( $(cat count) + 1 ))',
    });
    assert.equal(second.stdout, '2\n');
    await client.deleteSession(session.session_id);
    await assert.rejects(client.runSessionCommand(session.session_id, { command: 'true' }), {
      code: 'code_interpreter_http',
      status: 404,
      serviceCode: 'session_not_found',
    });
  });

  it('reports a 4xx with the service error code', async () => {
    await assert.rejects(client.execute({ code: 'print(1)', timeout_ms: 10 ** 9 }), {
      status: 400,
      serviceCode: 'invalid_request',
    });
  });
});

describe('CodeInterpreterClient acting for a user', () => {
  let server: InterpreterServer;
  let client: CodeInterpreterClient;
  before(async () => {
    server = await startInterpreterServer({ limits: { fileStoreBytesPerUser: 1024 * 1024 } });
    client = new CodeInterpreterClient({ baseUrl: server.url });
  });
  after(async () => {
    await server.close();
  });

  it("sends the user, so the service counts stored files against that user's share", async () => {
    const content = new Uint8Array(600 * 1024);
    await client.uploadFile({ filename: 'a.bin', content, userId: 'alice' });
    await assert.rejects(client.uploadFile({ filename: 'b.bin', content, userId: 'alice' }), {
      status: 507,
      serviceCode: 'file_store_full',
    });
    await client.uploadFile({ filename: 'c.bin', content, userId: 'bob' });
    const result = await client.execute(
      { code: "open('out.bin', 'wb').write(b'x' * 600 * 1024)" },
      { userId: 'alice' },
    );
    assert.deepEqual(result.files, []);
    assert.match(result.stderr, /"out\.bin" was not returned: .*per user/);
  });
});

describe('CodeInterpreterClient without a service', () => {
  it('says the service is unreachable, and isAvailable is false', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = new CodeInterpreterClient({ baseUrl: `http://127.0.0.1:${port}` });
    assert.equal(await client.isAvailable(), false);
    await assert.rejects(client.execute({ code: 'print(1)' }), { code: 'code_interpreter_unreachable' });
  });
});
