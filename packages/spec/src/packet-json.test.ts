import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packetJson } from './packet-json.ts';

test('packetJson is JSON.stringify, computed once per packet object', () => {
  const packet = { placement: { turn: 1, tab: 0 }, obj: { type: 'message-delta', content: 'hi "there"' } };
  const text = packetJson(packet);
  assert.equal(text, JSON.stringify(packet));
  // The same object gives the text kept for it (storage and every stream share one string): it is not read again.
  packet.obj.content = 'never changed after emit in a turn';
  assert.equal(packetJson(packet), text);
  const copy = structuredClone(packet);
  copy.obj.content = 'changed';
  assert.equal(packetJson(copy), JSON.stringify(copy), 'another object is stringified on its own');
  assert.equal(packetJson(null), 'null');
  assert.equal(packetJson(undefined), 'null');
});
