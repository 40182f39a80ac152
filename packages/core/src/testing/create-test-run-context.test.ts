import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchDocument } from '@toolbus/spec';
import { createTestRunContext } from './create-test-run-context.ts';

const document: SearchDocument = { id: 'doc-1', title: 'Doc', blurb: 'b', content: 'c', sourceType: 'web' };

describe('createTestRunContext', () => {
  it('records what the tool emits, at its placement and below, and drops what lies outside', () => {
    const { context, emitted } = createTestRunContext();
    context.emitter.emit({ type: 'heartbeat' });
    context.emitter.nested({ turn: 0, tab: 1 }).emit({ type: 'reasoning-start' });
    context.emitter.emitAt({ turn: 1, tab: 0 }, { type: 'section-end' });
    assert.deepEqual(emitted, [{ type: 'heartbeat' }, { type: 'reasoning-start' }]);
  });

  it('numbers documents through a real allocator, or refuses when citations are not allowed', () => {
    assert.deepEqual(
      createTestRunContext()
        .context.citations.assign([document])
        .map((cited) => cited.citationNumber),
      [1],
    );
    const { context } = createTestRunContext({ allowCitations: false });
    assert.throws(() => context.citations.assign([document]), { code: 'citation_allocator_fenced' });
  });

  it('builds calls with fresh ids and passes the signal through', () => {
    const controller = new AbortController();
    const { context, call } = createTestRunContext({ signal: controller.signal });
    assert.equal(context.signal, controller.signal);
    assert.deepEqual([call('a', {}).id, call('a', { x: 1 }).id], ['call-1', 'call-2']);
    assert.deepEqual(call('b', { y: 2 }), {
      id: 'call-3',
      name: 'b',
      arguments: { y: 2 },
      placement: { turn: 0, tab: 0 },
    });
  });
});
