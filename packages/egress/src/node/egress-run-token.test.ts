import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  deriveEgressTokenKey,
  maxEgressRunTokenTtlMs,
  mintEgressRunToken,
  verifyEgressRunToken,
} from './egress-run-token.ts';

const secretKey = new Uint8Array(randomBytes(32));
const key = deriveEgressTokenKey(secretKey);
const now = 1_800_000_000_000;

describe('egress run tokens', () => {
  it('round-trips the identity with a fresh run id per token', () => {
    const identity = { userId: 'user-1', organizationId: 'org-1', sessionId: 'chat-1', tag: 'call-1' };
    const first = mintEgressRunToken({ key, identity, ttlMs: 60_000, now });
    const second = mintEgressRunToken({ key, identity, ttlMs: 60_000, now });
    const checked = verifyEgressRunToken(first, { key, now: now + 59_000 });
    assert.ok(checked.ok);
    assert.deepEqual({ ...checked.identity, sandboxId: 'x' }, { sandboxId: 'x', ...identity });
    assert.equal(checked.expiresAtMs, now + 60_000);
    const other = verifyEgressRunToken(second, { key, now });
    assert.ok(other.ok);
    assert.notEqual(other.identity.sandboxId, checked.identity.sandboxId);
  });

  it('derives a key of its own: not the secret key, and the same for server and proxy', () => {
    assert.notDeepEqual(key, secretKey);
    assert.deepEqual(deriveEgressTokenKey(secretKey), key);
    const token = mintEgressRunToken({ key: secretKey, identity: { userId: 'u' }, ttlMs: 1000, now });
    assert.deepEqual(verifyEgressRunToken(token, { key, now }), { ok: false, reason: 'bad_signature' });
  });

  it('refuses a changed identity, another key, an expired token and garbage', () => {
    const token = mintEgressRunToken({ key, identity: { userId: 'user-1' }, ttlMs: 1000, now });
    const [version, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = `${version}.${Buffer.from(JSON.stringify({ ...claims, uid: 'user-2' })).toString('base64url')}.${signature}`;
    assert.deepEqual(verifyEgressRunToken(forged, { key, now }), { ok: false, reason: 'bad_signature' });
    const otherKey = deriveEgressTokenKey(new Uint8Array(randomBytes(32)));
    assert.deepEqual(verifyEgressRunToken(token, { key: otherKey, now }), {
      ok: false,
      reason: 'bad_signature',
    });
    assert.deepEqual(verifyEgressRunToken(token, { key, now: now + 1000 }), { ok: false, reason: 'expired' });
    for (const garbage of ['', 'v1', 'v1.a.b.c', `v2.${payload}.${signature}`, 'x'.repeat(5000)]) {
      assert.equal(verifyEgressRunToken(garbage, { key, now }).ok, false, garbage.slice(0, 20));
    }
  });

  it('caps the lifetime it mints and refuses a signed one that lives longer', () => {
    const capped = mintEgressRunToken({
      key,
      identity: { userId: 'u' },
      ttlMs: 10 * maxEgressRunTokenTtlMs,
      now,
    });
    const checked = verifyEgressRunToken(capped, { key, now });
    assert.ok(checked.ok);
    assert.equal(checked.expiresAtMs, now + maxEgressRunTokenTtlMs);
    const early = mintEgressRunToken({ key, identity: { userId: 'u' }, ttlMs: maxEgressRunTokenTtlMs, now });
    assert.deepEqual(verifyEgressRunToken(early, { key, now: now - 60_000 }), {
      ok: false,
      reason: 'malformed',
    });
  });
});
