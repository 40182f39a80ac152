import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolNamePattern } from '@toolbus/spec';
import { createToolNamer } from './tool-name.ts';

test('operationIds are sanitised; without one the name comes from method and path', () => {
  const name = createToolNamer();
  assert.equal(name({ operationId: 'repos/get-content', method: 'get', path: '/x' }), 'repos_get-content');
  assert.equal(name({ operationId: 'Pets.list (v2)', method: 'get', path: '/x' }), 'Pets_list_v2');
  assert.equal(name({ method: 'get', path: '/repos/{owner}/{repo}' }), 'get_repos_owner_repo');
  assert.equal(name({ operationId: '日本', method: 'post', path: '/items/{id}.json' }), 'post_items_id_json');
  assert.equal(name({ method: 'get', path: '/' }), 'get');
});

test('names are unique within a document, ignoring case', () => {
  const name = createToolNamer();
  assert.equal(name({ operationId: 'a.b', method: 'get', path: '/' }), 'a_b');
  assert.equal(name({ operationId: 'a b', method: 'get', path: '/' }), 'a_b_2');
  assert.equal(name({ operationId: 'A_B', method: 'get', path: '/' }), 'A_B_3');
});

test('long names are cut to 64 characters with a hash that keeps them distinct', () => {
  const name = createToolNamer({ prefix: 'github' });
  const long = 'x'.repeat(80);
  const first = name({ operationId: `${long}-one`, method: 'get', path: '/' });
  const second = name({ operationId: `${long}-two`, method: 'get', path: '/' });
  for (const result of [first, second]) {
    assert.match(result, toolNamePattern);
    assert.equal(result.length, 64);
    assert.ok(result.startsWith('github_xxx'));
  }
  assert.notEqual(first, second);
  // Deterministic: the same document gives the same names.
  assert.equal(
    createToolNamer({ prefix: 'github' })({ operationId: `${long}-one`, method: 'get', path: '/' }),
    first,
  );
});
