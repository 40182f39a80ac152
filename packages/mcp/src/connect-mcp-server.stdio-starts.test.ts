// A stdio server starts once: the 2026-07-28 probe (`server/discover`) runs on the session's own process. Only a
// legacy server that exits on that unknown request is started a second time, straight to `initialize`. Each
// fixture appends a line to a file per start, so the starts are counted, not assumed.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestRunContext } from '@toolbus/core/testing';
import { withMcpConnection } from './__fixtures__/with-mcp-connection.ts';
import { connectMcpServer } from './connect-mcp-server.ts';
import { McpConnectionError } from './errors/mcp-connection-error.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');

describe('stdio servers start once (the revision probe runs on the same process)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolbus-stdio-starts-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const starts = async (log: string): Promise<string[]> =>
    (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line.length > 0);

  const run = async (input: {
    fixture: string;
    log: string;
    tool: string;
    args: Record<string, unknown>;
  }) => {
    return await withMcpConnection(
      {
        id: input.fixture,
        name: input.fixture,
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [join(fixtures, input.fixture)],
          env: { MCP_SPAWN_LOG: input.log },
        },
      },
      {},
      async (connection) => {
        const tools = await connection.tools();
        const { context, call } = createTestRunContext({ allowCitations: false });
        const result = await tools
          .find((tool) => tool.name === input.tool)
          ?.run(call(input.tool, input.args), context);
        return result?.llmFacing;
      },
    );
  };

  test('a 2026-07-28 server: one start', async () => {
    const log = join(dir, 'modern.log');
    assert.equal(
      await run({ fixture: 'modern-stdio-mcp-server.mjs', log, tool: 'shout', args: { text: 'hi' } }),
      'HI',
    );
    assert.equal((await starts(log)).length, 1);
  });

  test('a 2025-11-25 server that answers the unknown probe with an error: one start', async () => {
    const log = join(dir, 'strict.log');
    assert.equal(
      await run({ fixture: 'strict-arguments-mcp-server.mjs', log, tool: 'add', args: { a: 2, b: 3 } }),
      '5',
    );
    assert.equal((await starts(log)).length, 1);
  });

  test('a 2025-11-25 server that exits on the unknown probe: exactly one restart, then it works', async () => {
    const log = join(dir, 'exiting.log');
    assert.equal(
      await run({ fixture: 'exiting-legacy-stdio-mcp-server.mjs', log, tool: 'twice', args: { n: 21 } }),
      '42',
    );
    const lines = await starts(log);
    assert.equal(lines.length, 2);
    assert.notEqual(lines[0], lines[1], 'two different processes');
  });

  test('a command that always exits is restarted once, not in a loop, and fails with a typed error', async () => {
    const log = join(dir, 'dying.log');
    await assert.rejects(
      () =>
        connectMcpServer(
          {
            id: 'dying',
            name: 'dying',
            transport: {
              type: 'stdio',
              command: process.execPath,
              args: [
                '-e',
                'require("node:fs").appendFileSync(process.env.MCP_SPAWN_LOG, "x\\n"); process.exit(3)',
              ],
              env: { MCP_SPAWN_LOG: log },
            },
          },
          { requestTimeoutMs: 5000 },
        ),
      (error: unknown) => McpConnectionError.isInstance(error) && error.code === 'mcp_connection_failed',
    );
    assert.equal((await starts(log)).length, 2);
  });
});
