import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MergeableField, ToolCall } from '@toolbus/spec';
import { mergeableFieldOf, mergeToolCalls } from './merge-tool-calls.ts';

const call = (id: string, name: string, args: unknown, tab: number): ToolCall => ({
  id,
  name,
  arguments: args as ToolCall['arguments'],
  placement: { turn: 0, tab },
});

const tools = new Map<string, { mergeableField?: MergeableField }>([
  ['open_url', { mergeableField: 'urls' }],
  ['web_search', { mergeableField: 'queries' }],
  ['python', {}],
]);

test('open_url calls merge on urls, keeping the first id and placement; other tools pass through', () => {
  const merged = mergeToolCalls(
    [
      call('u1', 'open_url', { urls: 'https://a.example' }, 0),
      call('p', 'python', { code: '1' }, 1),
      call('u2', 'open_url', { urls: ['https://b.example', 'https://a.example'] }, 2),
    ],
    tools,
  );
  assert.deepEqual(merged.calls, [
    call('u1', 'open_url', { urls: ['https://a.example', 'https://b.example'] }, 0),
    call('p', 'python', { code: '1' }, 1),
  ]);
  assert.deepEqual([...merged.mergedInto], [['u2', 'u1']]);
});

test('a single mergeable call still gets its string turned into a list', () => {
  const merged = mergeToolCalls([call('w', 'web_search', { queries: 'weather' }, 0)], tools);
  assert.deepEqual(merged.calls[0]?.arguments, { queries: ['weather'] });
});

test('merging is declared by the tool: a tool named web_search that declares nothing is never merged', () => {
  const own = new Map([['web_search', {}]]);
  const calls = [
    call('a', 'web_search', { queries: ['x'] }, 0),
    call('b', 'web_search', { queries: ['y'] }, 1),
  ];
  const merged = mergeToolCalls(calls, own);
  assert.deepEqual(merged.calls, calls);
  assert.equal(merged.mergedInto.size, 0);
  assert.equal(mergeableFieldOf(calls[0] as ToolCall, own.get('web_search')), undefined);
});

test('arguments that are not a plain object of strings run on their own, never dropped into another call', () => {
  const throwing = {};
  Object.defineProperty(throwing, 'queries', {
    enumerable: true,
    get() {
      throw new Error('hostile getter');
    },
  });
  const hostile = [
    call('n', 'web_search', null, 1),
    call('s', 'web_search', 'just a string', 2),
    call('arr', 'web_search', ['x'], 3),
    call('num', 'web_search', { queries: 5 }, 4),
    call('obj', 'web_search', { queries: [{ q: 'x' }] }, 5),
    call('missing', 'web_search', {}, 6),
    call('getter', 'web_search', throwing, 7),
    call(
      'proxy',
      'web_search',
      new Proxy(
        {},
        {
          getPrototypeOf: () => {
            throw new Error('trap');
          },
        },
      ),
      8,
    ),
  ];
  const first = call('ok', 'web_search', { queries: ['weather'] }, 0);
  const merged = mergeToolCalls([first, ...hostile], tools);
  assert.equal(merged.mergedInto.size, 0);
  assert.deepEqual(merged.calls.slice(1), hostile);
  for (const one of hostile) assert.equal(mergeableFieldOf(one, tools.get('web_search')), undefined);
});
