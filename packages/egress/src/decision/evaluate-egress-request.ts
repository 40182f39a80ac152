import type { ApprovalTarget } from './approval-broker.ts';
import { classifyJsonRpcBody, type JsonRpcBodyClass } from './classify-json-rpc-body.ts';
import type { CredentialRequest } from './credential-resolver.ts';
import type { EgressContext } from './egress-context.ts';
import { type EgressAction, type EgressPolicy, sortActionsStrictestFirst } from './egress-policy.ts';
import type { EgressIdentity } from './egress-request.ts';
import { matchConnectedApp } from './match-connected-app.ts';
import { matchMcpServer } from './match-mcp-server.ts';

/** What the gate makes of a request before credentials. */
export interface EgressEvaluation {
  /** The actions sorted strictest first; empty means off-catalogue (no gate, credentials only). */
  readonly actions: readonly EgressAction[];
  readonly target?: ApprovalTarget;
  /** What the credential resolvers are told (app and MCP attribution). */
  readonly attribution: Omit<CredentialRequest, 'url' | 'method' | 'identity'>;
}

const offCatalogue: EgressEvaluation = { actions: [], attribution: {} };

/** Options for {@link evaluateEgressRequest}. */
export interface EvaluateEgressRequestOptions {
  readonly url: URL;
  readonly method: string;
  readonly body: Uint8Array | undefined;
  readonly identity: EgressIdentity;
  readonly context: EgressContext;
}

/**
 * Classifies a request against the connected apps, then the MCP servers. The app evaluation fails open (an
 * error there counts as off-catalogue: the network boundary and the destination check are the security line,
 * and host-claiming resolvers still apply); once a request is attributed to an MCP server, every doubt denies.
 */
export async function evaluateEgressRequest(
  options: EvaluateEgressRequestOptions,
): Promise<EgressEvaluation> {
  const { url, method, identity, context } = options;
  try {
    const apps = await context.connectedApps(identity);
    const match = matchConnectedApp(apps, url, method);
    if (match !== undefined) {
      const { app } = match;
      const target: ApprovalTarget = { kind: 'app', id: String(app.id), name: app.name };
      const matched = match.actions.map(
        (action): EgressAction => ({ type: `app.${action.name}`, policy: action.policy, count: 1 }),
      );
      if (!app.usable) {
        const denied = matched.filter((action) => action.policy === 'DENY');
        return { actions: denied, target, attribution: { app } };
      }
      const actions: EgressAction[] =
        matched.length > 0 ? matched : [{ type: 'app.domain', policy: 'ASK', count: 1 }];
      return { actions: sortActionsStrictestFirst(actions), target, attribution: { app } };
    }
  } catch (error) {
    context.logger?.('egress_evaluator_error', [
      ['evaluator', 'connected_app'],
      ['error', error instanceof Error ? error.name : 'unknown'],
    ]);
  }
  let servers: Awaited<ReturnType<EgressContext['mcpServers']>>;
  try {
    servers = await context.mcpServers(identity);
  } catch {
    // Not attributed yet, so this fails open too; the MCP resolver still claims the host and refuses it bare.
    return offCatalogue;
  }
  const match = matchMcpServer(servers, url);
  if (match.kind === 'none') return offCatalogue;
  let body: JsonRpcBodyClass;
  try {
    body = classifyJsonRpcBody(method, options.body);
  } catch {
    body = { kind: 'unclassifiable', reason: 'classification failed' };
  }
  if (match.kind !== 'matched') return { actions: [], attribution: { mcp: { match, body, gated: false } } };
  const { server } = match;
  const target: ApprovalTarget = { kind: 'mcp', id: server.id, name: server.name };
  const attribution = { mcp: { match, body, gated: false } };
  if (body.kind === 'plumbing') return { actions: [], target, attribution };
  if (body.kind === 'unclassifiable') {
    return { actions: [{ type: 'mcp.unclassifiable', policy: 'DENY', count: 1 }], target, attribution };
  }
  const counts = new Map<string, number>();
  for (const name of body.toolNames) counts.set(name, (counts.get(name) ?? 0) + 1);
  const actions = [...counts].map(([name, count]): EgressAction => {
    // A server's own hints (readOnlyHint) never auto-approve: only an administrator's policy does.
    const policy: EgressPolicy = server.toolPolicies?.[name] ?? 'ASK';
    return { type: `mcp.${name}`, policy, count };
  });
  return { actions: sortActionsStrictestFirst(actions), target, attribution };
}
