import { omitUndefined } from '@toolbus/spec';
import { applyInjectedHeaders, headerValue } from './apply-injected-headers.ts';
import type { ApprovalDecision, ApprovalRequest } from './approval-broker.ts';
import { checkEgressDestination } from './check-egress-destination.ts';
import type { CredentialRequest } from './credential-resolver.ts';
import { decodeApprovalPayload } from './decode-approval-payload.ts';
import { dispatchCredentials } from './dispatch-credentials.ts';
import { type EgressBlockCode, egressBlockBody } from './egress-block.ts';
import { defaultApprovalTimeoutMs, type EgressContext, maxEgressBodyBytes } from './egress-context.ts';
import type { EgressBlock, EgressDecision, EgressDecisionMatch } from './egress-decision.ts';
import { type EgressLogValue, shortId } from './egress-logger.ts';
import type { EgressIdentity, EgressRequest } from './egress-request.ts';
import { type EgressEvaluation, evaluateEgressRequest } from './evaluate-egress-request.ts';

type Fields = Array<readonly [string, EgressLogValue]>;

/**
 * Decides what happens to one request from a sandbox: the destination check on the addresses that would be
 * dialled, the sandbox's identity (fail closed), the body cap, the app and MCP evaluation, the approval gate and
 * credential injection. Pure apart from what the context does; never throws (an unexpected failure is an
 * `internal_error` block, because a shell that forwarded on error would forward unchecked).
 */
export async function decideEgress(request: EgressRequest, context: EgressContext): Promise<EgressDecision> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return block(context, request, undefined, 'destination_blocked', {}, 'The URL does not parse.');
  }
  try {
    return await decide(request, url, context);
  } catch (error) {
    log(context, 'egress_internal_error', request, url, undefined, [
      ['error', error instanceof Error ? error.name : 'unknown'],
    ]);
    return block(context, request, url, 'internal_error', {});
  }
}

async function decide(request: EgressRequest, url: URL, context: EgressContext): Promise<EgressDecision> {
  const destination = await checkEgressDestination({
    url,
    resolveHost: context.resolveHost,
    policy: context.addressPolicy ?? { level: 'strict' },
    ...omitUndefined({ apiUrl: context.apiUrl }),
  });
  if (!destination.allowed) {
    log(context, 'egress_denied_internal_destination', request, url, undefined, [
      ['reason', destination.reason],
    ]);
    return block(context, request, url, 'destination_blocked', {});
  }
  const identity = await identify(request, context);
  if (identity === undefined) {
    log(context, 'identity_unknown_sandbox', request, url, undefined, []);
    return block(context, request, url, 'unidentified_sandbox', {});
  }
  const bodyLength = request.body?.length ?? request.bodyLength;
  if (bodyLength === undefined || bodyLength > maxEgressBodyBytes) {
    return block(context, request, url, 'body_too_large', { identity });
  }
  const evaluation = await evaluateEgressRequest({
    url,
    method: request.method,
    body: request.body,
    identity,
    context,
  });
  const match = matchOf(identity, evaluation);
  const governing = evaluation.actions[0];
  if (governing?.policy === 'DENY') return block(context, request, url, 'policy_denied', match);
  const gated = governing !== undefined;
  if (governing?.policy === 'ASK') {
    const refusal = await approve(request, url, identity, evaluation, context);
    if (refusal !== undefined) return block(context, request, url, refusal, match);
  }
  const credentialRequest: CredentialRequest = {
    url,
    method: request.method,
    identity,
    ...evaluation.attribution,
    ...(evaluation.attribution.mcp === undefined ? {} : { mcp: { ...evaluation.attribution.mcp, gated } }),
  };
  const dispatch = await dispatchCredentials(context.credentialResolvers, credentialRequest);
  if (dispatch.outcome === 'blocked') {
    log(context, 'credential_unavailable', request, url, identity, [['resolver', dispatch.resolver]]);
    return block(context, request, url, 'credential_error', match, dispatch.detail);
  }
  const injected = dispatch.outcome === 'injected' ? dispatch.headers : {};
  const injectedHeaderNames = Object.keys(injected);
  if (injectedHeaderNames.length > 0) {
    log(context, 'credential_injected', request, url, identity, [
      ['resolver', dispatch.outcome === 'injected' ? dispatch.resolver : undefined],
      ['headers', injectedHeaderNames.join(',')],
    ]);
  }
  log(context, 'egress_allow', request, url, identity, [
    ['app', match.app?.name],
    ['mcp', match.mcpServer?.name],
    ['credential', injectionOutcome(dispatch.outcome)],
  ]);
  return {
    outcome: dispatch.outcome,
    headers: applyInjectedHeaders(request.headers, injected),
    injectedHeaderNames,
    address: destination.address,
    port: destination.port,
    ...match,
  };
}

function injectionOutcome(outcome: string): string {
  if (outcome === 'injected') return 'headers_injected';
  if (outcome === 'claimed_no_inject') return 'claimed_no_headers';
  return 'none';
}

function matchOf(identity: EgressIdentity, evaluation: EgressEvaluation): EgressDecisionMatch {
  const { app, mcp } = evaluation.attribution;
  return {
    identity,
    ...omitUndefined({ app }),
    ...(mcp?.match.kind === 'matched' ? { mcpServer: mcp.match.server } : {}),
  };
}

async function identify(request: EgressRequest, context: EgressContext): Promise<EgressIdentity | undefined> {
  if (request.connection === undefined) return undefined;
  try {
    const identity = await context.identify(request.connection);
    return identity === undefined || identity.sandboxId === '' ? undefined : identity;
  } catch {
    return undefined;
  }
}

/** The session tag the request carries: the MCP session header, the CONNECT's proxy user, or the request's. */
function sessionTag(request: EgressRequest): string | undefined {
  const header = headerValue(request.headers, 'x-toolbus-mcp-session');
  if (header !== undefined && header !== '') return header;
  if (request.connectSessionTag !== undefined && request.connectSessionTag !== '')
    return request.connectSessionTag;
  return proxyAuthorizationUser(headerValue(request.headers, 'proxy-authorization'));
}

/** The user name of a `Basic` proxy credential, or undefined. */
export function proxyAuthorizationUser(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value.trim());
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const user = decoded.split(':')[0];
  return user === undefined || user === '' ? undefined : user;
}

async function resolveSession(
  request: EgressRequest,
  identity: EgressIdentity,
  context: EgressContext,
): Promise<string | undefined> {
  const tag = sessionTag(request);
  const check = context.sessionBelongsTo;
  if (check === undefined)
    return tag === undefined || tag === identity.sessionId ? identity.sessionId : undefined;
  // A tag is only believed for a session the identified user owns: it can be forged, but never across users. Where
  // the deployment can check ownership, the identity's own session (a pod label, a token) is checked too.
  const session = tag ?? identity.sessionId;
  if (session === undefined) return undefined;
  try {
    return (await check(session, identity)) ? session : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the approval gate; undefined when approved, else the block code. */
async function approve(
  request: EgressRequest,
  url: URL,
  identity: EgressIdentity,
  evaluation: EgressEvaluation,
  context: EgressContext,
): Promise<EgressBlockCode | undefined> {
  const sessionId = await resolveSession(request, identity, context);
  if (sessionId === undefined || evaluation.target === undefined) {
    log(context, 'session_unverified', request, url, identity, []);
    return 'no_active_session';
  }
  const approval: ApprovalRequest = {
    approvalId: context.createId?.() ?? crypto.randomUUID(),
    sessionId,
    identity,
    target: evaluation.target,
    actions: evaluation.actions.filter((action) => action.policy === 'ASK'),
    method: request.method.toUpperCase(),
    destination: `${url.protocol}//${url.host}${url.pathname}`,
    payload: decodeApprovalPayload(request.headers, request.body),
  };
  const broker = context.approvalBroker;
  const fields: Fields = [
    ['approval', shortId(approval.approvalId)],
    ['session', shortId(sessionId)],
    ['target', `${approval.target.kind}:${approval.target.name}`],
    ['action', approval.actions[0]?.type],
  ];
  if (broker !== undefined && (await broker.hasGrant(approval))) {
    log(context, 'approval_decided', request, url, identity, [
      ...fields,
      ['decision', 'approved'],
      ['source', 'session_grant'],
    ]);
    return undefined;
  }
  log(context, 'approval_requested', request, url, identity, fields);
  const decision =
    broker === undefined
      ? { decision: 'expired' as const, source: 'no_broker' }
      : await waitForDecision(broker.requestApproval.bind(broker), approval, context);
  log(context, 'approval_decided', request, url, identity, [
    ...fields,
    ['decision', decision.decision],
    ['source', decision.source],
  ]);
  if (decision.decision === 'approved' || decision.decision === 'approved_for_session') return undefined;
  return decision.decision === 'rejected' ? 'user_rejected' : 'not_authorized';
}

async function waitForDecision(
  requestApproval: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>,
  approval: ApprovalRequest,
  context: EgressContext,
): Promise<{ decision: ApprovalDecision | 'expired'; source: string }> {
  const controller = new AbortController();
  const timeoutMs = context.approvalTimeoutMs ?? defaultApprovalTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let onDrain: (() => void) | undefined;
  const expiry = new Promise<{ decision: 'expired'; source: string }>((resolve) => {
    timer = setTimeout(() => resolve({ decision: 'expired', source: 'timeout' }), timeoutMs);
    onDrain = () => resolve({ decision: 'expired', source: 'drain' });
    if (context.signal?.aborted) onDrain();
    else context.signal?.addEventListener('abort', onDrain, { once: true });
  });
  try {
    return await Promise.race([
      requestApproval(approval, controller.signal).then(
        (decision) => ({ decision, source: 'decision' }),
        () => ({ decision: 'expired' as const, source: 'broker_error' }),
      ),
      expiry,
    ]);
  } finally {
    clearTimeout(timer);
    if (onDrain !== undefined) context.signal?.removeEventListener('abort', onDrain);
    controller.abort();
  }
}

function block(
  context: EgressContext,
  request: EgressRequest,
  url: URL | undefined,
  code: EgressBlockCode,
  match: EgressDecisionMatch,
  detail?: string,
): EgressBlock {
  log(context, 'egress_block', request, url, match.identity, [['code', code]]);
  return { outcome: 'blocked', code, body: egressBlockBody(code, detail), ...match };
}

function log(
  context: EgressContext,
  event: string,
  request: EgressRequest,
  url: URL | undefined,
  identity: EgressIdentity | undefined,
  extra: Fields,
): void {
  // Host and path only: a query string often carries a token.
  context.logger?.(event, [
    ['sandbox', shortId(identity?.sandboxId)],
    ['user', shortId(identity?.userId)],
    ['method', request.method.toUpperCase()],
    ['host', url?.host],
    ['path', url?.pathname],
    ...extra,
  ]);
}
