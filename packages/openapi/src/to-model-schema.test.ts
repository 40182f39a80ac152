import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toModelSchema } from './to-model-schema.ts';

test('a self-referencing schema ends in {} instead of recursing forever', () => {
  const node: Record<string, unknown> = { type: 'object', properties: { name: { type: 'string' } } };
  (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
  (node.properties as Record<string, unknown>).parent = node;
  assert.deepEqual(toModelSchema(node), {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: {} }, parent: {} },
  });
});

test('deep nesting and huge schemas are cut to limits', () => {
  let deep: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < 50; level += 1) deep = { type: 'object', properties: { next: deep } };
  let depth = 0;
  let node: Record<string, unknown> | undefined = toModelSchema(deep);
  while (node?.properties) {
    depth += 1;
    node = (node.properties as Record<string, Record<string, unknown> | undefined>).next;
  }
  assert.equal(depth, 9);

  const wide = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'string' }])),
  };
  const converted = toModelSchema(wide, { maxDepth: 8, maxNodes: 100, maxDescriptionChars: 100 });
  const kept = Object.values(converted.properties as Record<string, Record<string, unknown>>).filter(
    (p) => p.type === 'string',
  );
  assert.equal(kept.length, 99);
});

test('OpenAPI keywords become provider-safe JSON Schema', () => {
  const schema = {
    allOf: [
      { type: 'object', required: ['id'], properties: { id: { type: 'integer', readOnly: true } } },
      {
        type: 'object',
        required: ['kind', 'missing'],
        properties: {
          kind: { type: 'string', enum: ['a', 'b', null], nullable: true, example: 'a' },
          when: { type: 'string', format: 'date-time', default: 'now' },
          choice: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }], discriminator: {} },
          either: { type: ['string', 'null'] },
          both: { type: ['string', 'integer'] },
          map: { type: 'object', additionalProperties: { type: 'string' } },
          upload: { type: 'file' },
          list: { type: 'array' },
          fixed: { const: 'only' },
        },
      },
    ],
  };
  assert.deepEqual(toModelSchema(schema), {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: ['a', 'b'] },
      when: { type: 'string', description: 'Format: date-time. Default: "now".' },
      choice: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      either: { type: 'string' },
      both: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      map: { type: 'object', properties: {} },
      upload: { type: 'string', description: 'File contents as text.' },
      list: { type: 'array', items: {} },
      fixed: { enum: ['only'] },
    },
    required: ['kind'],
  });
});
