// Progress: toolbus always asks for progress (a progress token on every `tools/call`), so a long tool that keeps
// reporting is kept alive past the call timeout, while one that says nothing still dies at it; each report becomes
// a `tool-progress` packet (the CLI's tool line and the web UI's tool tab show it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestRunContext } from '@toolbus/core/testing';
import { createRecordingFetch } from './__fixtures__/recording-fetch.ts';
import { withHttpMcpConnection } from './__fixtures__/with-mcp-connection.ts';
import { connectMcpServer } from './connect-mcp-server.ts';
import { describeMcpProgress } from './mcp-progress.ts';
import {
  type ModernMcpServer,
  type ModernTool,
  sendProgress,
  startModernMcpServer,
} from './testing/modern-mcp-server.ts';

const timeoutMs = 1500;
/** The long tool works for three call timeouts, reporting well inside each one. */
const steps = 15;
const stepMs = timeoutMs / 5;

let releaseSilent: () => void = () => undefined;
let progressTokenSeen = false;

const longTool: ModernTool = {
  name: 'long',
  description: 'Works for a long time, reporting progress.',
  call: async (_args, context) => {
    for (let step = 1; step <= steps; step += 1) {
      await new Promise((resolve) => setTimeout(resolve, stepMs));
      progressTokenSeen =
        (await sendProgress(context, { progress: step, total: steps, message: 'crunching' })) ||
        progressTokenSeen;
    }
    return { content: [{ type: 'text', text: 'finished' }] };
  },
};

const silentTool: ModernTool = {
  name: 'silent',
  description: 'Works until released, saying nothing.',
  call: async () => {
    await new Promise<void>((resolve) => {
      releaseSilent = resolve;
    });
    return { content: [{ type: 'text', text: 'too late' }] };
  },
};

describe('MCP progress', () => {
  let server: ModernMcpServer;
  before(async () => {
    server = await startModernMcpServer([longTool, silentTool]);
  });
  after(() => server.close());

  test('a long tool that reports progress outlives the call timeout, and each report is a tool-progress packet', async () => {
    await withHttpMcpConnection(
      { url: server.url, name: 'p', toolCallTimeoutMs: timeoutMs },
      async (connection) => {
        const long = (await connection.tools()).find((tool) => tool.mcpToolName === 'long');
        assert.ok(long);
        const { context, call, emitted } = createTestRunContext({ allowCitations: false });
        const result = await long.run(call('long', {}), context);
        assert.equal(result.llmFacing, 'finished');
        assert.ok(progressTokenSeen, 'the call carried a progress token');
        const progress = emitted.filter((obj) => obj.type === 'tool-progress');
        assert.equal(progress.length, steps);
        assert.deepEqual(progress.at(-1), {
          type: 'tool-progress',
          toolCallId: 'call-1',
          message: `${steps}/${steps} (100%) · crunching`,
          progress: steps,
          total: steps,
        });
      },
    );
  });

  test('a tool that reports nothing still dies at the call timeout', async () => {
    const connection = await connectMcpServer(
      { id: 'p', name: 'p', transport: { type: 'streamable-http', url: server.url } },
      { fetch: createRecordingFetch().fetch, toolCallTimeoutMs: timeoutMs },
    );
    try {
      const silent = (await connection.tools()).find((tool) => tool.mcpToolName === 'silent');
      assert.ok(silent);
      const { context, call } = createTestRunContext({ allowCitations: false });
      await assert.rejects(silent.run(call('silent', {}), context), /timed out/i);
    } finally {
      releaseSilent();
      await connection.close();
    }
  });

  test('the progress line: counted, with a percentage when there is a total, control characters flattened', () => {
    assert.equal(
      describeMcpProgress({ progress: 3, total: 10, message: 'step\r\nthree' }),
      '3/10 (30%) · step three',
    );
    assert.equal(describeMcpProgress({ progress: 42 }), '42');
    assert.equal(describeMcpProgress({ progress: 0.5, total: 1 }), '0.5/1 (50%)');
  });
});
