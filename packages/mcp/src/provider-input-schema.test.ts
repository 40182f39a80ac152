// Schemas a provider accepts: what the 2026-07-28 revision allows at the root (allOf / anyOf / if, $ref) is
// normalised where it can be, and a tool whose schema cannot be is set aside with the reason, never failing the
// listing; the server's own schema is kept on the descriptor. Proven against a real 2026-07-28 server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { withHttpMcpConnection } from './__fixtures__/with-mcp-connection.ts';
import { providerInputSchema } from './provider-input-schema.ts';
import { type ModernMcpServer, type ModernTool, startModernMcpServer } from './testing/modern-mcp-server.ts';

const answer = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });

const refTool: ModernTool = {
  name: 'with_ref',
  inputSchema: {
    type: 'object',
    $defs: { city: { type: 'string', description: 'A city' } },
    properties: { from: { $ref: '#/$defs/city' }, to: { $ref: '#/$defs/city' } },
    required: ['from'],
  },
  call: answer,
};
const anyOfTool: ModernTool = {
  name: 'with_any_of',
  inputSchema: {
    anyOf: [
      {
        type: 'object',
        properties: { id: { type: 'string' }, verbose: { type: 'boolean' } },
        required: ['id'],
      },
      {
        type: 'object',
        properties: { name: { type: 'string' }, verbose: { type: 'boolean' } },
        required: ['name'],
      },
    ],
  },
  call: answer,
};
const recursiveTool: ModernTool = {
  name: 'recursive',
  inputSchema: {
    type: 'object',
    $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
    properties: { tree: { $ref: '#/$defs/node' } },
  },
  call: answer,
};

describe('provider input schemas', () => {
  test('local $refs are inlined and the definitions dropped', () => {
    const result = providerInputSchema(refTool.inputSchema);
    assert.deepEqual(result, {
      ok: true,
      schema: {
        type: 'object',
        properties: {
          from: { type: 'string', description: 'A city' },
          to: { type: 'string', description: 'A city' },
        },
        required: ['from'],
      },
    });
  });

  test('a root allOf is merged; a root anyOf keeps every property, required only where all branches require it', () => {
    assert.deepEqual(
      providerInputSchema({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
        ],
      }),
      {
        ok: true,
        schema: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
      },
    );
    const anyOf = providerInputSchema(anyOfTool.inputSchema);
    assert.ok(anyOf.ok);
    assert.deepEqual(Object.keys(anyOf.schema.properties as object), ['id', 'verbose', 'name']);
    assert.equal(anyOf.schema.required, undefined);
    assert.equal(anyOf.schema.anyOf, undefined);
  });

  test('if/then/else at the root is loosened into optional properties', () => {
    const result = providerInputSchema({
      type: 'object',
      properties: { kind: { type: 'string' } },
      required: ['kind'],
      if: { properties: { kind: { const: 'x' } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
      then: { properties: { x: { type: 'number' } }, required: ['x'] },
    });
    assert.deepEqual(result, {
      ok: true,
      schema: {
        type: 'object',
        properties: { kind: { type: 'string' }, x: { type: 'number' } },
        required: ['kind'],
      },
    });
    const plain = providerInputSchema({
      type: 'object',
      properties: { kind: { type: 'string' } },
      required: ['kind'],
      if: { required: ['kind'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
      then: { properties: { x: { type: 'number' } }, required: ['x'] },
      else: { properties: { y: { type: 'number' } } },
    });
    assert.deepEqual(plain, {
      ok: true,
      schema: {
        type: 'object',
        properties: { kind: { type: 'string' }, x: { type: 'number' }, y: { type: 'number' } },
        required: ['kind'],
      },
    });
  });

  test('what cannot be normalised says why', () => {
    for (const [schema, why] of [
      [recursiveTool.inputSchema, '$ref "#/$defs/node" is recursive'],
      [
        { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } },
        'points outside the schema',
      ],
      [{ type: 'array', items: { type: 'string' } }, 'not an object'],
      [{ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, 'names nothing in the schema'],
      [
        { allOf: [{ properties: { a: { type: 'string' } } }, { properties: { a: { type: 'number' } } }] },
        'property "a" is defined two different ways',
      ],
    ] as const) {
      const result = providerInputSchema(schema as Record<string, unknown>);
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.reason.includes(why), JSON.stringify(result));
    }
  });
});

describe('provider input schemas from a real 2026-07-28 server', () => {
  let server: ModernMcpServer;
  before(async () => {
    server = await startModernMcpServer([refTool, anyOfTool, recursiveTool]);
  });
  after(() => server.close());

  test('one bad schema does not fail the listing: it is set aside with the reason, the others are normalised', async () => {
    await withHttpMcpConnection({ url: server.url, name: 's' }, async (connection) => {
      const tools = await connection.tools();
      const byName = new Map(tools.map((tool) => [tool.mcpToolName, tool]));
      assert.equal(byName.get('with_ref')?.inputSchemaProblem, undefined);
      assert.equal(JSON.stringify(byName.get('with_ref')?.definition().parameters).includes('$ref'), false);
      assert.equal(byName.get('with_any_of')?.definition().parameters.anyOf, undefined);
      assert.match(byName.get('recursive')?.inputSchemaProblem ?? '', /recursive/);
      // The server's own schema is kept as listed.
      assert.ok(JSON.stringify(byName.get('with_ref')?.descriptor.inputSchema).includes('$ref'));
    });
  });
});
