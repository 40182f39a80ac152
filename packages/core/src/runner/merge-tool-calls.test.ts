import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolCall } from '@toolbus/spec';
import { mergeToolCalls } from './merge-tool-calls.ts';

const call = (id: string, name: string, args: Record<string, unknown>, tab: number): ToolCall => ({
  id,
  name,
  arguments: args,
  placement: { turn: 0, tab },
});

test('open_url calls merge on urls, keeping the first id and placement; other tools pass through', () => {
  const merged = mergeToolCalls([
    call('u1', 'open_url', { urls: 'https://a.example' }, 0),
    call('p', 'python', { code: '1' }, 1),
    call('u2', 'open_url', { urls: ['https://b.example', 'https://a.example'] }, 2),
  ]);
  assert.deepEqual(merged.calls, [
    call('u1', 'open_url', { urls: ['https://a.example', 'https://b.example'] }, 0),
    call('p', 'python', { code: '1' }, 1),
  ]);
  assert.deepEqual([...merged.mergedInto], [['u2', 'u1']]);
});

test('a single mergeable call still gets its string turned into a list', () => {
  const merged = mergeToolCalls([call('w', 'web_search', { queries: 'weather' }, 0)]);
  assert.deepEqual(merged.calls[0]?.arguments, { queries: ['weather'] });
});
