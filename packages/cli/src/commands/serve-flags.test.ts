import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../usage-error.ts';
import { parseServeFlags } from './serve-flags.ts';

const usage = 'Usage: toolbus serve';

test('--mcp-client-metadata-url: an https URL on --public-origin, refused otherwise with what it takes', () => {
  const flags = parseServeFlags({
    values: {
      'public-origin': 'https://toolbus.example',
      'mcp-client-metadata-url': 'https://toolbus.example/oauth/client-metadata.json',
    },
    usage,
  });
  assert.equal(flags.mcpClientMetadataUrl, 'https://toolbus.example/oauth/client-metadata.json');
  assert.equal(parseServeFlags({ values: {}, usage }).mcpClientMetadataUrl, undefined);
  for (const [values, problem] of [
    [{ 'mcp-client-metadata-url': 'https://toolbus.example/oauth/c.json' }, /public origin \(none set/],
    [
      { 'public-origin': 'https://toolbus.example', 'mcp-client-metadata-url': 'https://toolbus.example/' },
      /needs a path/,
    ],
  ] as const) {
    assert.throws(
      () => parseServeFlags({ values, usage }),
      (error: unknown) =>
        error instanceof UsageError &&
        /^--mcp-client-metadata-url: /.test(error.message) &&
        problem.test(error.message),
    );
  }
});
