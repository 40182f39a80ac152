import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exampleArguments } from './example-arguments.ts';

test('required properties only, from the values the schema gives before placeholders', () => {
  assert.deepEqual(
    exampleArguments({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'a city name' },
        unit: { type: 'string', enum: ['metric', 'imperial'] },
        kind: { const: 'forecast' },
        days: { type: 'integer', default: 3 },
        note: { type: 'string' },
        hourly: { type: 'boolean' },
      },
      required: ['city', 'unit', 'kind', 'days', 'note'],
    }),
    { city: '<a city name>', unit: 'metric', kind: 'forecast', days: 3, note: '...' },
  );
  assert.deepEqual(exampleArguments({ type: 'object', properties: { page: { type: 'integer' } } }), {});
});

test('within the bounds: item counts, numbers, nullable and alternative types', () => {
  assert.deepEqual(
    exampleArguments({
      type: 'object',
      properties: {
        ids: { type: 'array', items: { type: 'integer', minimum: 10 }, minItems: 2 },
        ratio: { type: 'number', maximum: 0.5 },
        count: { type: 'integer', minimum: -9_007_199_254_740_991, maximum: 9_007_199_254_740_991 },
        limit: { type: ['integer', 'null'], exclusiveMinimum: 4 },
        target: { anyOf: [{ type: 'null' }, { type: 'string', enum: ['a', 'b'] }] },
        size: { type: 'string', default: 7 },
        filter: { type: 'object', properties: { tag: { type: 'string' }, owner: { type: 'string' } } },
        both: {
          allOf: [
            { type: 'object', properties: { a: { const: 1 } }, required: ['a'] },
            { properties: { b: { const: 2 } }, required: ['b'] },
          ],
        },
      },
      required: ['ids', 'ratio', 'count', 'limit', 'target', 'size', 'filter', 'both'],
    }),
    {
      ids: [10, 10],
      ratio: 0.5,
      count: 1,
      limit: 5,
      target: 'a',
      size: '...',
      filter: { tag: '...' },
      both: { a: 1, b: 2 },
    },
  );
});
