import assert from 'node:assert/strict';
import { test } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import { foldAnswer, nextMessageText } from './fold-answer.ts';
import type { Packet, PacketObject } from './packet.ts';

const at = (turn: number, obj: PacketObject, path?: Packet['placement']['path']): Packet => ({
  placement: { turn, tab: 0, ...omitUndefined({ path }) },
  obj,
  modelIndex: 0,
});

test('a retracted message keeps only what replaced it; a sub-agent message is not the answer', () => {
  const folded = foldAnswer([
    at(0, { type: 'message-start' }),
    at(0, { type: 'message-delta', content: 'Let me look. {"name": "lookup"' }),
    at(0, { type: 'message-replace', content: 'Let me look.' }),
    at(1, { type: 'message-delta', content: 'nested' }, [{ turn: 0, tab: 0 }]),
    at(2, { type: 'message-start' }),
    at(2, { type: 'message-delta', content: 'Refunds take ' }),
    at(2, { type: 'citation-info', citationNumber: 1, documentId: 'doc-a' }),
    at(2, { type: 'message-delta', content: '14 days [1].' }),
    at(2, { type: 'citation-info', citationNumber: 1, documentId: 'doc-a' }),
    at(2, { type: 'error', code: 'model_error', message: 'It broke.' }),
    at(2, { type: 'stop', reason: 'error' }),
  ]);
  assert.equal(folded.answer, 'Refunds take 14 days [1].');
  assert.deepEqual(folded.messages, ['Let me look.', 'Refunds take 14 days [1].']);
  assert.deepEqual(folded.citations, [{ citationNumber: 1, documentId: 'doc-a' }]);
  assert.equal(folded.stopReason, 'error');
  assert.deepEqual(folded.error, { code: 'model_error', message: 'It broke.' });
});

test('a message started again at its placement begins empty; no packets, no answer', () => {
  const folded = foldAnswer([
    at(0, { type: 'message-delta', content: 'first' }),
    at(0, { type: 'message-start' }),
    at(0, { type: 'message-delta', content: 'second' }),
  ]);
  assert.equal(folded.answer, 'second');
  assert.deepEqual(folded.messages, ['second']);
  assert.deepEqual(foldAnswer([]), { answer: '', messages: [], citations: [] });
  assert.equal(nextMessageText('kept', { type: 'reasoning-delta', reasoning: 'x' }), undefined);
});
