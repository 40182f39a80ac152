import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolbusClientError } from '@toolbus/client';
import { omitUndefined } from '@toolbus/spec';
import { backoffMs, transientFailure } from './transient-failure.ts';

const refused = (status: number, retryAfterSeconds?: number) =>
  new ToolbusClientError({
    code: `http_${status}`,
    message: `The server answered ${status}.`,
    status,
    ...omitUndefined({ retryAfterSeconds }),
  });

test('429, 502, 503, 504 and a lost network are transient, in words without codes; the server’s wait wins', () => {
  assert.deepEqual(transientFailure(refused(429, 7)), {
    words: 'Too many requests: the server asks you to wait 7 seconds.',
    waitMs: 7000,
  });
  for (const status of [502, 503, 504]) {
    const failure = transientFailure(refused(status), 3);
    assert.equal(failure?.words, 'The server is unavailable for a moment.');
    assert.equal(failure?.waitMs, backoffMs(3));
  }
  assert.equal(transientFailure(refused(503, 5))?.waitMs, 5000);
  const lost = new ToolbusClientError({ code: 'network_error', message: 'POST /v1/chats/x/messages: …' });
  assert.equal(transientFailure(lost)?.words, 'The connection to the server was lost.');
});

test('refusals that trying again cannot change are not transient', () => {
  for (const status of [400, 401, 403, 404, 409, 413, 500])
    assert.equal(transientFailure(refused(status)), undefined);
  assert.equal(transientFailure(new Error('boom')), undefined);
});

test('the back-off doubles from 1 s and stops at 30 s', () => {
  assert.deepEqual([1, 2, 3, 6, 20].map(backoffMs), [1000, 2000, 4000, 30_000, 30_000]);
});
