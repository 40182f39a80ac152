// A stdio server's environment holds an admin's secrets (API keys the server needs). A careless server that logs
// them must not hand them to whoever receives the call's relayed logs (a `/v1/mcp` caller): they are masked as the
// header values of an HTTP server are.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { callRelayingLogs } from './__fixtures__/call-relaying-logs.ts';
import { withMcpConnection } from './__fixtures__/with-mcp-connection.ts';

const fixture = join(
  dirname(fileURLToPath(import.meta.url)),
  '__fixtures__',
  'env-logging-stdio-mcp-server.mjs',
);

test("a stdio server's environment values are masked in the logs relayed from its calls", async () => {
  const secret = 'ghp_fixture-secret-0123456789';
  await withMcpConnection(
    {
      id: 'env-logging',
      name: 'env-logging',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [fixture],
        env: { FIXTURE_TOKEN: secret },
      },
    },
    {},
    async (connection) => {
      const relayed = await callRelayingLogs(connection, 'connect');
      assert.equal(relayed.length, 1, 'the log message itself is relayed');
      assert.deepEqual(relayed[0]?.data, { note: 'connecting with', token: '[redacted]' });
      assert.doesNotMatch(JSON.stringify(relayed), /fixture-secret/);
    },
  );
});
