// Which session an ASK request is asked in: the identity's own (a pod or container label, a run token), or an
// in-band tag; where the deployment can check ownership (the standalone proxy, on storage), both are checked, and
// every doubt refuses the request without asking anyone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestContext, egressRequest, jsonBody } from './__fixtures__/egress-test-context.ts';
import { type ApprovalRequest, createInProcessApprovalBroker } from './approval-broker.ts';
import { decideEgress } from './decide-egress.ts';
import type { EgressContext } from './egress-context.ts';

const createIssue = egressRequest({
  url: 'https://api.github.com/repos/acme/app/issues',
  method: 'POST',
  headers: [['content-type', 'application/json']],
  body: jsonBody({ title: 'bug' }),
});

async function askedIn(
  overrides: Partial<EgressContext>,
  request = createIssue,
): Promise<{ code: string | undefined; sessions: string[] }> {
  const sessions: string[] = [];
  const broker = createInProcessApprovalBroker({
    ask: async (asked: ApprovalRequest) => {
      sessions.push(asked.sessionId);
      return 'approved';
    },
  });
  const { context } = createTestContext({ broker, overrides });
  const decision = await decideEgress(request, context);
  return { code: decision.outcome === 'blocked' ? decision.code : undefined, sessions };
}

describe('decideEgress: the session of an ASK request', () => {
  it("asks in the identity's own session when nothing checks ownership (one process: the proxy made it)", async () => {
    assert.deepEqual(await askedIn({}), { code: undefined, sessions: ['session-a1'] });
  });

  it("checks the identity's labelled session where ownership can be checked: another user's chat asks nobody", async () => {
    const owners: Record<string, string> = { 'session-a1': 'user-alice-0001', 'session-b1': 'user-bob-0002' };
    const owned = await askedIn({ sessionBelongsTo: (id, identity) => owners[id] === identity.userId });
    assert.deepEqual(owned, { code: undefined, sessions: ['session-a1'] });
    const foreign = await askedIn({ sessionBelongsTo: () => false });
    assert.deepEqual(foreign, { code: 'no_active_session', sessions: [] });
    const broken = await askedIn({
      sessionBelongsTo: () => {
        throw new Error('storage down');
      },
    });
    assert.deepEqual(broken, { code: 'no_active_session', sessions: [] }, 'a check that fails is a no');
  });

  it('a sandbox without a session label names a chat of its own user in-band, never one of another user', async () => {
    const owners: Record<string, string> = {
      'chat-alice-2': 'user-alice-0001',
      'chat-bob-1': 'user-bob-0002',
    };
    const check = {
      sessionBelongsTo: (id: string, identity: { userId?: string }) => owners[id] === identity.userId,
    };
    const unlabelled = (tag: string) => ({
      ...createIssue,
      connection: 'conn-unlabelled',
      headers: [
        ...createIssue.headers,
        ['Proxy-Authorization', `Basic ${Buffer.from(`${tag}:x`).toString('base64')}`],
      ] as const,
    });
    const identify = (connection: string) =>
      connection === 'conn-unlabelled'
        ? { sandboxId: 'sandbox-pod-7', userId: 'user-alice-0001' }
        : undefined;
    assert.deepEqual(await askedIn({ ...check, identify }, unlabelled('chat-alice-2')), {
      code: undefined,
      sessions: ['chat-alice-2'],
    });
    assert.deepEqual(await askedIn({ ...check, identify }, unlabelled('chat-bob-1')), {
      code: 'no_active_session',
      sessions: [],
    });
    assert.deepEqual(
      await askedIn({ ...check, identify }, { ...createIssue, connection: 'conn-unlabelled' }),
      {
        code: 'no_active_session',
        sessions: [],
      },
    );
  });
});
