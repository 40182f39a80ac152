import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import {
  createTestRunContext,
  type LoopbackHttpServer,
  startLoopbackHttpServer,
} from '@toolbus/core/testing';
import { type Tool, ToolCallError } from '@toolbus/spec';
import { createOpenApiTools } from './create-openapi-tools.ts';

// Every operation of the real documents, called the way a model would after one mistake: first with no
// arguments, then with exactly the example call the corrective message shows. The example must be accepted,
// and the request must reach the server with every path template filled in.

const require = createRequire(import.meta.url);
const examplesRoot = dirname(require.resolve('@readme/oas-examples/package.json'));
const githubDocument = require.resolve('@octokit/openapi/generated/api.github.com.json');

let server: LoopbackHttpServer;
let baseUrl = '';

before(async () => {
  server = await startLoopbackHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  // Calls are seconds apart while big documents parse: keep idle connections open, or a reused socket can race
  // the server's idle close.
  server.server.keepAliveTimeout = 120_000;
  baseUrl = `${server.origin}/base`;
});
after(() => server.close());

async function callEveryTool(tools: readonly Tool[], label: string): Promise<void> {
  for (const tool of tools) {
    const { context, call: toolCall } = createTestRunContext({ allowCitations: false });
    const before = server.received.length;
    let args: Record<string, unknown> = {};
    try {
      await tool.run(toolCall(tool.name, args), context);
    } catch (error) {
      assert.ok(ToolCallError.isInstance(error), `${label} ${tool.name}: ${String(error)}`);
      const example = /Call it like this: (.*)$/s.exec(error.modelMessage)?.[1];
      assert.ok(example, `${label} ${tool.name}: no example in ${error.modelMessage}`);
      const parsed = JSON.parse(example) as { name: string; arguments: Record<string, unknown> };
      assert.equal(parsed.name, tool.name);
      args = parsed.arguments;
      await tool.run(toolCall(tool.name, args), context).catch((second: unknown) => {
        assert.fail(
          `${label} ${tool.name}: the example ${example} was refused: ${(second as ToolCallError).modelMessage ?? second}`,
        );
      });
    }
    assert.equal(server.received.length, before + 1, `${label} ${tool.name}: one request`);
    const request = server.received.at(-1);
    assert.ok(
      request?.url.startsWith('/base/') || request?.url.startsWith('/base?'),
      `${label} ${tool.name}: ${request?.url}`,
    );
    assert.ok(
      !/[{}]|%7B|%7D/i.test(request?.url.split('?')[0] ?? ''),
      `${label} ${tool.name}: unfilled path ${request?.url}`,
    );
  }
}

test('every operation of every oas-examples document is callable with its own example call', async (context) => {
  let calls = 0;
  const walk = (directory: string): string[] =>
    readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(join(directory, entry.name))
        : entry.name.endsWith('.json')
          ? [join(directory, entry.name)]
          : [],
    );
  for (const version of ['2.0', '3.0', '3.1']) {
    for (const file of walk(join(examplesRoot, version))) {
      const label = relative(examplesRoot, file);
      const tools = await createOpenApiTools({
        document: readFileSync(file, 'utf8'),
        fetch,
        baseUrl,
        validate: false,
      });
      await callEveryTool(tools, label);
      calls += tools.length;
    }
  }
  context.diagnostic(`oas-examples: ${calls} operations called`);
  assert.ok(calls > 300);
});

test("every operation of GitHub's API is callable with its own example call", async (context) => {
  const tools = await createOpenApiTools({
    document: readFileSync(githubDocument, 'utf8'),
    fetch,
    baseUrl,
    validate: false,
  });
  await callEveryTool(tools, 'github');
  context.diagnostic(`github: ${tools.length} operations called`);
  assert.ok(tools.length > 1000);
});
