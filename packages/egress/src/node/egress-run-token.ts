import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import { omitUndefined } from '@toolbus/spec';
import type { EgressIdentity } from '../decision/egress-request.ts';

/**
 * A run's identity as the server vouches for it: what the standalone proxy trusts instead of a source address when
 * many users' runs share one interpreter pod. Signed with a key only the server and the proxy hold, so neither the
 * interpreter that relays it nor anything else can make or change one.
 */
export interface EgressRunIdentity {
  readonly userId: string;
  readonly organizationId?: string;
  /** The chat the run belongs to (session grants and approvals are per chat). */
  readonly sessionId?: string;
  /** What the run is for (the tool call id); informational, as everywhere else. */
  readonly tag?: string;
}

/** Why a token was refused; the proxy answers 407 for every one of them. */
export type EgressRunTokenRefusal = 'malformed' | 'bad_signature' | 'expired';

/** What {@link verifyEgressRunToken} concluded. */
export type EgressRunTokenCheck =
  | { readonly ok: true; readonly identity: EgressIdentity; readonly expiresAtMs: number }
  | { readonly ok: false; readonly reason: EgressRunTokenRefusal };

/** The longest a token may live: the longest run (a session of 6 hours) bounds it. */
export const maxEgressRunTokenTtlMs = 6 * 60 * 60 * 1000;

/** The longest token the proxy reads (its identity is a few ids; anything longer is not one of ours). */
export const maxEgressRunTokenLength = 2048;

const version = 'v1';
const derivationInfo = 'toolbus egress run token v1';
const idPattern = /^[\x21-\x7e]{1,200}$/;

/**
 * The token key, derived from the deployment's secret key (`TOOLBUS_SECRET_KEY`, which the server and the proxy
 * already share to decrypt credentials) with HKDF-SHA256 under a label of its own, so a token's MAC never reuses
 * the encryption key itself and no second secret has to be distributed.
 */
export function deriveEgressTokenKey(secretKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secretKey, new Uint8Array(), derivationInfo, 32));
}

function mac(key: Uint8Array, signed: string): Buffer {
  return createHmac('sha256', key).update(signed).digest();
}

/**
 * Mints the token of one run: its identity, a fresh run id and an expiry `ttlMs` from now (capped at
 * {@link maxEgressRunTokenTtlMs}), HMAC-SHA256 signed. A bearer value: whoever holds it acts as that run until it
 * expires, so it travels only from the server to the interpreter and from the interpreter to the proxy.
 */
export function mintEgressRunToken(options: {
  readonly key: Uint8Array;
  readonly identity: EgressRunIdentity;
  readonly ttlMs: number;
  readonly now?: number;
}): string {
  const now = options.now ?? Date.now();
  const ttl = Math.max(1, Math.min(options.ttlMs, maxEgressRunTokenTtlMs));
  const payload = Buffer.from(
    JSON.stringify({
      sid: randomUUID(),
      uid: options.identity.userId,
      ...omitUndefined({
        oid: options.identity.organizationId,
        chat: options.identity.sessionId,
        tag: options.identity.tag,
      }),
      exp: now + ttl,
    }),
  ).toString('base64url');
  const signed = `${version}.${payload}`;
  return `${signed}.${mac(options.key, signed).toString('base64url')}`;
}

function optionalId(value: unknown): string | undefined | false {
  if (value === undefined) return undefined;
  return typeof value === 'string' && idPattern.test(value) ? value : false;
}

/**
 * Verifies a token: its shape, its signature (compared in constant time) and its expiry. Only a token that passes
 * all three yields an identity; the proxy refuses everything else, so it fails closed.
 */
export function verifyEgressRunToken(
  token: string,
  options: { readonly key: Uint8Array; readonly now?: number },
): EgressRunTokenCheck {
  if (token.length > maxEgressRunTokenLength) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== version || parts[1] === undefined || parts[2] === undefined) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = mac(options.key, `${parts[0]}.${parts[1]}`);
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  let claims: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return { ok: false, reason: 'malformed' };
    claims = parsed as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const { sid, uid, exp } = claims;
  const organizationId = optionalId(claims.oid);
  const sessionId = optionalId(claims.chat);
  const tag = optionalId(claims.tag);
  if (
    typeof sid !== 'string' ||
    !idPattern.test(sid) ||
    typeof uid !== 'string' ||
    !idPattern.test(uid) ||
    typeof exp !== 'number' ||
    !Number.isSafeInteger(exp) ||
    organizationId === false ||
    sessionId === false ||
    tag === false
  ) {
    return { ok: false, reason: 'malformed' };
  }
  const now = options.now ?? Date.now();
  if (exp <= now) return { ok: false, reason: 'expired' };
  // A validly signed token living longer than any run can is not one this server mints: refuse it too.
  if (exp - now > maxEgressRunTokenTtlMs) return { ok: false, reason: 'malformed' };
  return {
    ok: true,
    identity: { sandboxId: sid, userId: uid, ...omitUndefined({ organizationId, sessionId, tag }) },
    expiresAtMs: exp,
  };
}
