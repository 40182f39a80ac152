import type { ApprovalBroker } from '../approval-broker.ts';
import type { ConnectedApp, EgressMcpServer } from '../egress-catalogue.ts';
import type { EgressContext } from '../egress-context.ts';
import { formatEgressLogLine } from '../egress-logger.ts';
import type { EgressIdentity, EgressRequest } from '../egress-request.ts';
import { createConnectedAppResolver } from '../../resolvers/create-connected-app-resolver.ts';
import { createMcpServerResolver } from '../../resolvers/create-mcp-server-resolver.ts';
import { omitUndefined } from '@toolbus/spec';

/** Public addresses used as DNS answers only; decision tests never dial anything. */
export const dnsTable: Readonly<Record<string, readonly string[]>> = {
  'api.github.com': ['140.82.112.6'],
  'mcp.example.com': ['93.184.215.14'],
  'other.example.com': ['93.184.215.15'],
  'mixed.example.com': ['93.184.215.16', '10.0.0.5'],
  'internal.example.com': ['192.168.1.10'],
  'toolbus.internal': ['10.1.2.3'],
  'xn--bcher-kva.example': ['93.184.215.17'],
};

export const secrets = {
  githubOrg: 'ghp_ORGSECRET_0123456789',
  aliceToken: 'alice-user-token-abcdef',
  bobToken: 'bob-user-token-zyxwvu',
  mcpToken: 'mcp-bearer-7777777',
};

export const alice: EgressIdentity = { sandboxId: 'sandbox-alice-0001', userId: 'user-alice-0001', sessionId: 'session-a1' };
export const bob: EgressIdentity = { sandboxId: 'sandbox-bob-0002', userId: 'user-bob-0002', sessionId: 'session-b1' };
export const noUser: EgressIdentity = { sandboxId: 'sandbox-nobody-03' };

export const githubApp: ConnectedApp = {
  id: 2,
  name: 'github',
  urlPatterns: ['https://api\\.github\\.com/.*'],
  usable: true,
  actions: [
    { name: 'read', method: 'GET', pathPattern: '/repos/.*', policy: 'ALWAYS' },
    { name: 'create_issue', method: 'POST', pathPattern: '/repos/[^/]+/[^/]+/issues', policy: 'ASK' },
    { name: 'delete_repo', method: 'DELETE', pathPattern: '/repos/[^/]+/[^/]+', policy: 'DENY' },
  ],
};

export const mcpServer: EgressMcpServer = {
  id: 'mcp-1',
  name: 'tracker',
  url: 'https://mcp.example.com/mcp',
  toolPolicies: { search: 'ALWAYS', drop_table: 'DENY' },
};

/** Options for {@link createTestContext}. */
export interface TestContextOptions {
  readonly apps?: readonly ConnectedApp[];
  readonly mcpServers?: readonly EgressMcpServer[];
  readonly broker?: ApprovalBroker;
  readonly templates?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly overrides?: Partial<EgressContext>;
}

/** A context whose every dependency is real code over in-memory tables; `lines` collects every log line. */
export function createTestContext(options: TestContextOptions = {}): {
  context: EgressContext;
  lines: string[];
  userValueCalls: string[];
} {
  const lines: string[] = [];
  const userValueCalls: string[] = [];
  const identities: Record<string, EgressIdentity> = { 'conn-alice': alice, 'conn-bob': bob, 'conn-nouser': noUser };
  const apps = options.apps ?? [githubApp];
  const servers = options.mcpServers ?? [mcpServer];
  const templates = options.templates ?? { github: { Authorization: 'token {{org.github}}' } };
  const userValues: Record<string, Record<string, string>> = {
    'user-alice-0001': { token: secrets.aliceToken },
    'user-bob-0002': { token: secrets.bobToken },
  };
  const context: EgressContext = {
    identify: (connection) => identities[connection],
    resolveHost: async (name) => {
      const answer = dnsTable[name];
      if (answer === undefined) throw new Error(`ENOTFOUND ${name}`);
      return answer;
    },
    apiUrl: 'https://toolbus.internal:8443',
    connectedApps: () => apps,
    mcpServers: () => servers,
    credentialResolvers: [
      createMcpServerResolver({
        allServers: () => servers,
        credentialsFor: () => ({ Authorization: `Bearer ${secrets.mcpToken}` }),
      }),
      createConnectedAppResolver({
        template: (app) => templates[app.name],
        organizationValues: () => ({ github: secrets.githubOrg }),
        userValues: (_app, userId) => {
          userValueCalls.push(userId);
          return userValues[userId];
        },
      }),
    ],
    ...omitUndefined({ approvalBroker: options.broker }),
    logger: (event, fields) => lines.push(formatEgressLogLine(event, fields)),
    ...options.overrides,
  };
  return { context, lines, userValueCalls };
}

/** A request from `connection` with sensible defaults. */
export function egressRequest(overrides: Partial<EgressRequest> & { url: string }): EgressRequest {
  return { method: 'GET', headers: [], bodyLength: 0, connection: 'conn-alice', ...overrides };
}

/** A JSON body. */
export function jsonBody(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}
