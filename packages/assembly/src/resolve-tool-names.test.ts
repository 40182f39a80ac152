import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sanitizeToolName, toolNamePattern } from '@toolbus/spec';
import fc from 'fast-check';
import { resolveToolNames } from './resolve-tool-names.ts';

const namePattern = toolNamePattern;

describe('sanitizeToolName', () => {
  test('replaces characters providers refuse, and cuts long names keeping a hash of the whole', () => {
    assert.equal(sanitizeToolName('repos/get content.v2'), 'repos_get_content_v2');
    assert.equal(sanitizeToolName(''), 'tool');
    const long = `${'a'.repeat(70)}_one`;
    const other = `${'a'.repeat(70)}_two`;
    assert.equal(sanitizeToolName(long).length, 64);
    assert.notEqual(sanitizeToolName(long), sanitizeToolName(other));
  });
});

describe('resolveToolNames', () => {
  test('an MCP tool colliding with a built-in takes mcp_{server}_{tool}; the built-in keeps its name', () => {
    assert.deepEqual(
      resolveToolNames([
        { name: 'web_search', kind: 'mcp', disambiguatedName: 'mcp_search server_web_search' },
        { name: 'web_search', kind: 'built-in' },
      ]),
      ['mcp_search_server_web_search', 'web_search'],
    );
  });

  test('two MCP servers with the same tool name both take their server names', () => {
    assert.deepEqual(
      resolveToolNames([
        { name: 'read', kind: 'mcp', disambiguatedName: 'mcp_files_read' },
        { name: 'read', kind: 'mcp', disambiguatedName: 'mcp_mail_read' },
        { name: 'send', kind: 'mcp', disambiguatedName: 'mcp_mail_send' },
      ]),
      ['mcp_files_read', 'mcp_mail_read', 'send'],
    );
  });

  test('the last resort is a numeric suffix, case-insensitively, built-ins first', () => {
    assert.deepEqual(
      resolveToolNames([
        { name: 'Search', kind: 'openapi' },
        { name: 'search', kind: 'built-in' },
        { name: 'search', kind: 'openapi' },
      ]),
      ['Search_2', 'search', 'search_3'],
    );
    const long = 'x'.repeat(64);
    const [, second] = resolveToolNames([
      { name: long, kind: 'openapi' },
      { name: long, kind: 'openapi' },
    ]);
    assert.equal(second, `${'x'.repeat(62)}_2`);
  });

  test('any mix of names comes out provider-valid and unique (property)', () => {
    const kind = fc.constantFrom('built-in' as const, 'openapi' as const, 'mcp' as const);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ name: fc.string({ maxLength: 90 }), kind, server: fc.string({ maxLength: 70 }) }),
          {
            maxLength: 40,
          },
        ),
        (candidates) => {
          const names = resolveToolNames(
            candidates.map((candidate) => ({
              name: candidate.name,
              kind: candidate.kind,
              disambiguatedName: `mcp_${candidate.server}_${candidate.name}`,
            })),
          );
          assert.equal(names.length, candidates.length);
          for (const name of names) assert.match(name, namePattern);
          assert.equal(new Set(names.map((name) => name.toLowerCase())).size, names.length);
        },
      ),
    );
  });
});
