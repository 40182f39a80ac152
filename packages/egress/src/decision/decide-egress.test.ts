import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createMcpServerResolver } from '../resolvers/create-mcp-server-resolver.ts';
import {
  bob,
  createTestContext,
  egressRequest,
  githubApp,
  jsonBody,
  mcpServer,
  secrets,
  type TestContextOptions,
} from './__fixtures__/egress-test-context.ts';
import {
  type ApprovalBroker,
  type ApprovalDecision,
  type ApprovalRequest,
  createInProcessApprovalBroker,
} from './approval-broker.ts';
import type { CredentialResolver } from './credential-resolver.ts';
import { decideEgress } from './decide-egress.ts';
import type { EgressContext } from './egress-context.ts';
import { maxEgressBodyBytes } from './egress-context.ts';
import type { EgressDecision } from './egress-decision.ts';
import type { EgressRequest } from './egress-request.ts';

const allLogLines: string[] = [];
const allBlockBodies: string[] = [];

async function decide(
  request: EgressRequest,
  options: TestContextOptions = {},
): Promise<{ decision: EgressDecision; context: EgressContext; lines: string[]; userValueCalls: string[] }> {
  const { context, lines, userValueCalls } = createTestContext(options);
  const decision = await decideEgress(request, context);
  allLogLines.push(...lines);
  if (decision.outcome === 'blocked') allBlockBodies.push(JSON.stringify(decision.body));
  return { decision, context, lines, userValueCalls };
}

function header(decision: EgressDecision, name: string): string[] {
  assert.notEqual(decision.outcome, 'blocked', JSON.stringify(decision));
  if (decision.outcome === 'blocked') return [];
  return decision.headers
    .filter(([key]) => key.toLowerCase() === name.toLowerCase())
    .map(([, value]) => value);
}

function blockedWith(decision: EgressDecision, code: string): void {
  assert.equal(decision.outcome, 'blocked', JSON.stringify(decision));
  if (decision.outcome === 'blocked') {
    assert.equal(decision.code, code);
    assert.equal(decision.body.error, code);
    assert.ok(decision.body.message.length > 20);
  }
}

function tool(name: string, id = 1): unknown {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } };
}

const approveAll = createInProcessApprovalBroker({ ask: async () => 'approved' });

/** A broker that answers every ask with `decision` and keeps the requests it was asked. */
function recordingBroker(decision: ApprovalDecision): {
  readonly broker: ApprovalBroker;
  readonly asked: ApprovalRequest[];
} {
  const asked: ApprovalRequest[] = [];
  const broker = createInProcessApprovalBroker({
    ask: async (request) => {
      asked.push(request);
      return decision;
    },
  });
  return { broker, asked };
}

describe('decideEgress: destination', () => {
  it('passes an off-catalogue public host through, dialling the checked address', async () => {
    const { decision } = await decide(
      egressRequest({ url: 'https://other.example.com/x', headers: [['Accept', '*/*']] }),
    );
    assert.equal(decision.outcome, 'pass_through');
    if (decision.outcome === 'pass_through') {
      assert.equal(decision.address, '93.184.215.15');
      assert.equal(decision.port, 443);
      assert.deepEqual(decision.headers, [['Accept', '*/*']]);
    }
  });

  for (const [label, url] of [
    ['a name resolving to a private address', 'https://internal.example.com/'],
    ['a name with mixed public and internal answers', 'https://mixed.example.com/'],
    ['a name that does not resolve', 'https://nowhere.example.com/'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a metadata host name', 'http://metadata.google.internal/'],
    ['loopback in IPv4-mapped IPv6 form', 'http://[::ffff:127.0.0.1]:8080/'],
    ['loopback written as a decimal number', 'http://2130706433/'],
    ['the toolbus API host on another port', 'https://toolbus.internal:22/'],
    ['a non-HTTP scheme', 'ftp://other.example.com/'],
  ] as const) {
    it(`blocks ${label}`, async () => {
      const { decision } = await decide(egressRequest({ url }));
      blockedWith(decision, 'destination_blocked');
    });
  }

  it('allows the toolbus API (an internal address), adding no credential: the code brings its own key', async () => {
    const { decision } = await decide(egressRequest({ url: 'https://toolbus.internal:8443/api/v1/me' }));
    assert.equal(decision.outcome, 'pass_through');
    assert.deepEqual(header(decision, 'Authorization'), []);
  });
});

describe('decideEgress: identity and body', () => {
  for (const [label, connection, overrides] of [
    ['a connection without identity', undefined, {}],
    ['an unknown connection', 'conn-stranger', {}],
    [
      'an identity lookup that throws',
      'conn-alice',
      {
        identify: () => {
          throw new Error('lookup down');
        },
      },
    ],
  ] as const) {
    it(`refuses ${label} as unidentified_sandbox`, async () => {
      const { decision } = await decide(egressRequest({ url: 'https://other.example.com/', connection }), {
        overrides,
      });
      blockedWith(decision, 'unidentified_sandbox');
    });
  }

  it('allows a body of exactly 32 MiB and refuses one byte more, or a streamed body', async () => {
    const exact = await decide(
      egressRequest({ url: 'https://other.example.com/', method: 'POST', bodyLength: maxEgressBodyBytes }),
    );
    assert.equal(exact.decision.outcome, 'pass_through');
    const over = await decide(
      egressRequest({
        url: 'https://other.example.com/',
        method: 'POST',
        bodyLength: maxEgressBodyBytes + 1,
      }),
    );
    blockedWith(over.decision, 'body_too_large');
    const { bodyLength: _omitted, ...streamed } = egressRequest({
      url: 'https://other.example.com/',
      method: 'POST',
    });
    blockedWith((await decide(streamed)).decision, 'body_too_large');
  });
});

describe('decideEgress: connected apps', () => {
  it('injects an ALWAYS action, leaving exactly one copy of a replaced header and no proxy-only headers', async () => {
    const { decision, lines } = await decide(
      egressRequest({
        url: 'https://api.github.com/repos/acme/widgets?access_token=QUERYSECRET',
        headers: [
          ['authorization', 'token sandbox-made-up'],
          ['Authorization', 'Bearer second-copy'],
          ['Proxy-Authorization', 'Basic c2Vzc2lvbjp4'],
          ['X-Toolbus-Mcp-Session', 'session-a1'],
          ['Accept', 'application/json'],
        ],
      }),
    );
    assert.equal(decision.outcome, 'injected');
    assert.equal(decision.app?.name, 'github');
    assert.deepEqual(header(decision, 'authorization'), [`token ${secrets.githubOrg}`]);
    assert.deepEqual(header(decision, 'proxy-authorization'), []);
    assert.deepEqual(header(decision, 'x-toolbus-mcp-session'), []);
    assert.deepEqual(header(decision, 'accept'), ['application/json']);
    assert.ok(
      lines.some(
        (line) => line.includes('event=credential_injected') && line.includes('headers=Authorization'),
      ),
    );
    assert.ok(!lines.join('\n').includes('QUERYSECRET'));
  });

  it('refuses a DENY action', async () => {
    const { decision } = await decide(
      egressRequest({ url: 'https://api.github.com/repos/acme/widgets', method: 'DELETE' }),
    );
    blockedWith(decision, 'policy_denied');
    assert.equal(decision.app?.name, 'github');
  });

  it('asks for an ASK action and injects once approved, showing the decoded payload', async () => {
    const { broker, asked } = recordingBroker('approved');
    const { decision } = await decide(
      egressRequest({
        url: 'https://api.github.com/repos/acme/widgets/issues?x=1',
        method: 'POST',
        headers: [['content-type', 'application/json']],
        body: jsonBody({ title: 'Bug' }),
      }),
      { broker },
    );
    assert.equal(decision.outcome, 'injected');
    assert.equal(asked.length, 1);
    assert.deepEqual(
      asked[0]?.actions.map((action) => action.type),
      ['app.create_issue'],
    );
    assert.deepEqual(asked[0]?.payload, { title: 'Bug' });
    assert.equal(asked[0]?.destination, 'https://api.github.com/repos/acme/widgets/issues');
    assert.equal(asked[0]?.sessionId, 'session-a1');
  });

  it('gates an unmatched path of a usable app as ASK for the whole domain', async () => {
    const { broker, asked } = recordingBroker('rejected');
    const { decision } = await decide(egressRequest({ url: 'https://api.github.com/user' }), { broker });
    blockedWith(decision, 'user_rejected');
    assert.deepEqual(
      asked[0]?.actions.map((action) => action.type),
      ['app.domain'],
    );
  });

  it('expires an ASK nobody answers (timeout, no broker, or a drain) as not_authorized', async () => {
    const never = createInProcessApprovalBroker({
      ask: (_request, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('withdrawn'))),
        ),
    });
    const url = 'https://api.github.com/user';
    const timedOut = await decide(egressRequest({ url }), {
      broker: never,
      overrides: { approvalTimeoutMs: 20 },
    });
    blockedWith(timedOut.decision, 'not_authorized');
    assert.equal(never.pending().length, 0, 'the question is withdrawn when the wait ends');
    blockedWith((await decide(egressRequest({ url }))).decision, 'not_authorized');
    const drain = new AbortController();
    const pending = decide(egressRequest({ url }), { broker: never, overrides: { signal: drain.signal } });
    setTimeout(() => drain.abort(), 10);
    blockedWith((await pending).decision, 'not_authorized');
  });

  it('remembers a session grant, and only for that session', async () => {
    let asks = 0;
    const broker = createInProcessApprovalBroker({
      ask: async () => {
        asks += 1;
        return 'approved_for_session';
      },
    });
    const { context } = createTestContext({ broker });
    const request = egressRequest({ url: 'https://api.github.com/user' });
    assert.equal((await decideEgress(request, context)).outcome, 'injected');
    assert.equal((await decideEgress(request, context)).outcome, 'injected');
    assert.equal(asks, 1);
    await decideEgress({ ...request, connection: 'conn-bob' }, context);
    assert.equal(asks, 2, "bob's session is not covered by alice's grant");
  });

  it('refuses ASK without a session, and ignores a session tag of a session the user does not own', async () => {
    const noSession = await decide(
      egressRequest({ url: 'https://api.github.com/user', connection: 'conn-nouser' }),
      {
        broker: approveAll,
      },
    );
    blockedWith(noSession.decision, 'no_active_session');
    const sessions: Record<string, string> = { 'session-b1': bob.userId ?? '' };
    const forged = await decide(
      egressRequest({
        url: 'https://api.github.com/user',
        connection: 'conn-nouser',
        headers: [['X-Toolbus-Mcp-Session', 'session-b1']],
      }),
      {
        broker: approveAll,
        overrides: { sessionBelongsTo: (id, identity) => sessions[id] === identity.userId },
      },
    );
    blockedWith(forged.decision, 'no_active_session');
    const owned = await decide(
      egressRequest({
        url: 'https://api.github.com/user',
        connection: 'conn-nouser',
        connectSessionTag: 'session-x',
      }),
      { broker: approveAll, overrides: { sessionBelongsTo: () => true } },
    );
    assert.equal(owned.decision.outcome, 'injected');
  });

  it('forwards an unusable app bare, but still honours its DENY actions', async () => {
    const unusable = { ...githubApp, usable: false };
    const bare = await decide(egressRequest({ url: 'https://api.github.com/repos/a/b' }), {
      apps: [unusable],
    });
    assert.equal(bare.decision.outcome, 'claimed_no_inject');
    assert.deepEqual(header(bare.decision, 'authorization'), []);
    const denied = await decide(
      egressRequest({ url: 'https://api.github.com/repos/a/b', method: 'DELETE' }),
      {
        apps: [unusable],
      },
    );
    blockedWith(denied.decision, 'policy_denied');
  });

  it('skips only a broken pattern, not the rest of its app, and lets the lowest id win among matches', async () => {
    const broken = {
      ...githubApp,
      id: 1,
      name: 'broken',
      urlPatterns: ['https://api\\.github\\.com/(', 'https://api\\.github\\.com/repos/.*'],
    };
    const later = { ...githubApp, id: 9, name: 'later' };
    const repos = await decide(egressRequest({ url: 'https://api.github.com/repos/a/b' }), {
      apps: [later, broken, githubApp],
    });
    assert.equal(repos.decision.app?.name, 'broken', 'its good pattern still matches');
    // Where only the broken pattern could have applied, the next app is matched: the typo claims nothing.
    const user = await decide(egressRequest({ url: 'https://api.github.com/user' }), {
      apps: [later, broken, githubApp],
    });
    assert.equal(user.decision.app?.name, 'github');
  });

  it('never matches a disabled app, so it cannot shadow an enabled one with the same URLs', async () => {
    const disabled = { ...githubApp, id: 1, name: 'old github', enabled: false };
    const { decision } = await decide(egressRequest({ url: 'https://api.github.com/repos/a/b' }), {
      apps: [disabled, { ...githubApp, id: 5 }],
    });
    assert.equal(decision.app?.name, 'github');
    assert.equal(decision.outcome, 'injected');
    const alone = await decide(egressRequest({ url: 'https://api.github.com/repos/a/b' }), {
      apps: [disabled],
    });
    assert.equal(alone.decision.outcome, 'pass_through');
  });

  it('compares host names in canonical form: letter case, a trailing dot, IDNA', async () => {
    for (const url of ['https://API.GitHub.com/repos/a/b', 'https://api.github.com./repos/a/b']) {
      const { decision } = await decide(egressRequest({ url }), { apps: [githubApp] });
      assert.equal(decision.app?.name, 'github', url);
    }
    const unicode = { ...githubApp, urlPatterns: ['https://xn--bcher-kva\\.example/.*'] };
    const { decision } = await decide(egressRequest({ url: 'https://BÜCHER.example./list' }), {
      apps: [unicode],
    });
    assert.equal(decision.app?.name, 'github');
  });

  it('anchors patterns at both ends', async () => {
    const app = { ...githubApp, urlPatterns: ['https://api\\.github\\.com/repos/[a-z]+'] };
    const { decision } = await decide(egressRequest({ url: 'https://api.github.com/repos/a/b' }), {
      apps: [app],
    });
    assert.equal(decision.outcome, 'pass_through');
  });

  it('fills per-user values from the requester only, and blocks a per-user credential when there is no user', async () => {
    const templates = { github: { Authorization: 'Bearer {{user.token}}' } };
    const aliceRun = await decide(egressRequest({ url: 'https://api.github.com/repos/a/b' }), { templates });
    assert.deepEqual(header(aliceRun.decision, 'authorization'), [`Bearer ${secrets.aliceToken}`]);
    assert.deepEqual(aliceRun.userValueCalls, ['user-alice-0001']);
    const bobRun = await decide(
      egressRequest({ url: 'https://api.github.com/repos/a/b', connection: 'conn-bob' }),
      { templates },
    );
    assert.deepEqual(header(bobRun.decision, 'authorization'), [`Bearer ${secrets.bobToken}`]);
    const nobody = await decide(
      egressRequest({ url: 'https://api.github.com/repos/a/b', connection: 'conn-nouser' }),
      {
        templates,
      },
    );
    blockedWith(nobody.decision, 'credential_error');
    assert.deepEqual(nobody.userValueCalls, [], 'no user values are loaded without a user');
    const unset = await decide(egressRequest({ url: 'https://api.github.com/repos/a/b' }), {
      templates: { github: { 'X-Key': '{{org.missing}}' } },
    });
    blockedWith(unset.decision, 'credential_error');
  });
});

describe('decideEgress: credential resolvers', () => {
  const throwingClaims: CredentialResolver = {
    name: 'broken_claims',
    claims: () => {
      throw new Error('boom');
    },
    resolve: async () => ({ 'X-Never': 'never' }),
  };
  const throwingResolve: CredentialResolver = {
    name: 'broken_resolve',
    claims: () => true,
    resolve: async () => {
      throw new Error(`database password ${secrets.githubOrg} in a message`);
    },
  };

  it('skips a resolver whose claims throws and lets the next claimer win', async () => {
    const { context } = createTestContext();
    const decision = await decideEgress(egressRequest({ url: 'https://api.github.com/repos/a/b' }), {
      ...context,
      credentialResolvers: [throwingClaims, ...context.credentialResolvers],
    });
    assert.equal(decision.outcome, 'injected');
    assert.deepEqual(header(decision, 'x-never'), []);
  });

  it('blocks when the claiming resolver throws, without its message', async () => {
    const { context, lines } = createTestContext();
    const decision = await decideEgress(egressRequest({ url: 'https://other.example.com/' }), {
      ...context,
      credentialResolvers: [throwingResolve],
    });
    allLogLines.push(...lines);
    blockedWith(decision, 'credential_error');
    if (decision.outcome === 'blocked') allBlockBodies.push(JSON.stringify(decision.body));
  });
});

describe('decideEgress: MCP servers', () => {
  const mcpUrl = 'https://mcp.example.com/mcp';

  it('forwards plumbing with the server credential and no approval', async () => {
    for (const request of [
      egressRequest({
        url: mcpUrl,
        method: 'POST',
        body: jsonBody({ jsonrpc: '2.0', id: 1, method: 'initialize' }),
      }),
      egressRequest({
        url: mcpUrl,
        method: 'POST',
        body: jsonBody([
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        ]),
      }),
      egressRequest({ url: mcpUrl, method: 'GET' }),
    ]) {
      const { decision } = await decide(request);
      assert.equal(decision.outcome, 'injected');
      assert.equal(decision.mcpServer?.id, 'mcp-1');
      assert.deepEqual(header(decision, 'authorization'), [`Bearer ${secrets.mcpToken}`]);
    }
  });

  it('applies per-tool policies: ALWAYS injects, DENY refuses, unlisted asks (with repeat counts)', async () => {
    const always = await decide(
      egressRequest({ url: mcpUrl, method: 'POST', body: jsonBody(tool('search')) }),
    );
    assert.equal(always.decision.outcome, 'injected');
    const deny = await decide(
      egressRequest({ url: mcpUrl, method: 'POST', body: jsonBody([tool('search'), tool('drop_table', 2)]) }),
    );
    blockedWith(deny.decision, 'policy_denied');
    const { broker, asked } = recordingBroker('approved');
    const ask = await decide(
      egressRequest({
        url: mcpUrl,
        method: 'POST',
        body: jsonBody([tool('create', 1), tool('create', 2), tool('search', 3)]),
      }),
      { broker },
    );
    assert.equal(ask.decision.outcome, 'injected');
    assert.deepEqual(asked[0]?.actions, [{ type: 'mcp.create', policy: 'ASK', count: 2 }]);
    assert.deepEqual(asked[0]?.target, { kind: 'mcp', id: 'mcp-1', name: 'tracker' });
  });

  for (const [label, method, body] of [
    ['malformed JSON', 'POST', new TextEncoder().encode('{"method":')],
    ['overly deep JSON', 'POST', new TextEncoder().encode(`${'['.repeat(100)}${']'.repeat(100)}`)],
    ['an empty batch', 'POST', jsonBody([])],
    [
      'tools/call without a name',
      'POST',
      jsonBody({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }),
    ],
    ['an unknown method', 'POST', jsonBody({ jsonrpc: '2.0', id: 1, method: 'sampling/createMessage' })],
    ['a PUT', 'PUT', jsonBody({ jsonrpc: '2.0', id: 1, method: 'ping' })],
  ] as const) {
    it(`denies an unclassifiable body: ${label}`, async () => {
      const { decision } = await decide(egressRequest({ url: mcpUrl, method, body }), { broker: approveAll });
      blockedWith(decision, 'policy_denied');
    });
  }

  it('lets the longest path prefix win and blocks a tie', async () => {
    const root = { id: 'mcp-root', name: 'root', url: 'https://mcp.example.com/' };
    const longest = await decide(egressRequest({ url: `${mcpUrl}/sub`, method: 'GET' }), {
      mcpServers: [root, mcpServer],
    });
    assert.equal(longest.decision.mcpServer?.id, 'mcp-1');
    const twin = { ...mcpServer, id: 'mcp-2', name: 'twin', url: 'https://mcp.example.com:443/mcp/' };
    const tie = await decide(egressRequest({ url: mcpUrl, method: 'POST', body: jsonBody(tool('search')) }), {
      mcpServers: [mcpServer, twin],
    });
    blockedWith(tie.decision, 'credential_error');
    if (tie.decision.outcome === 'blocked')
      assert.match(tie.decision.body.detail ?? '', /duplicate MCP server URL/);
  });

  it('blocks a path outside the prefix (after normalising dot segments) on an MCP host', async () => {
    for (const url of [
      'https://mcp.example.com/admin',
      'https://mcp.example.com/mcp/../admin',
      'https://mcp.example.com/%6dcp2',
    ]) {
      const { decision } = await decide(egressRequest({ url, method: 'GET' }));
      blockedWith(decision, 'credential_error');
    }
  });

  it('never puts the HTTPS server credential on plain HTTP to the same host', async () => {
    const { decision } = await decide(egressRequest({ url: 'http://mcp.example.com/mcp', method: 'GET' }));
    assert.equal(decision.outcome, 'pass_through');
    assert.deepEqual(header(decision, 'authorization'), []);
  });

  it('a server that needs no credential passes with nothing added; one the user is not connected to is refused', async () => {
    const { context } = createTestContext();
    const withCredentials = (credentials: Record<string, string> | undefined) => ({
      ...context,
      credentialResolvers: [
        createMcpServerResolver({ allServers: () => [mcpServer], credentialsFor: () => credentials }),
      ],
    });
    const plumbing = egressRequest({
      url: mcpUrl,
      method: 'POST',
      body: jsonBody({ jsonrpc: '2.0', id: 1, method: 'initialize' }),
    });
    const open = await decideEgress(plumbing, withCredentials({}));
    assert.equal(open.outcome, 'claimed_no_inject');
    assert.equal(open.outcome === 'claimed_no_inject' && open.mcpServer?.id, 'mcp-1');
    assert.deepEqual(header(open, 'authorization'), []);
    const notConnected = await decideEgress(plumbing, withCredentials(undefined));
    blockedWith(notConnected, 'credential_error');
  });

  it('refuses an MCP host this user cannot reach instead of forwarding it bare', async () => {
    const { context } = createTestContext();
    const decision = await decideEgress(egressRequest({ url: mcpUrl, method: 'GET' }), {
      ...context,
      mcpServers: () => [],
    });
    blockedWith(decision, 'credential_error');
  });
});

after(() => {
  // Every log line and 403 body of this suite, checked against every secret it configured.
  assert.ok(allLogLines.length > 20);
  const everything = [...allLogLines, ...allBlockBodies].join('\n');
  for (const secret of [
    ...Object.values(secrets),
    'QUERYSECRET',
    'sandbox-made-up',
    'second-copy',
    'c2Vzc2lvbjp4',
  ]) {
    assert.ok(
      !everything.includes(secret),
      `a secret leaked into logs or 403 bodies: ${secret.slice(0, 4)}…`,
    );
  }
  for (const line of allLogLines)
    assert.match(line, /^event=[a-z_]+( [a-z_]+=([^\s"]+|"([^"\\]|\\.)*"))*$/, line);
});
