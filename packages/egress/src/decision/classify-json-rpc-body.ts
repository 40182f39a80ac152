/** How an MCP request body reads: protocol plumbing, tool calls, or something that cannot be judged. */
export type JsonRpcBodyClass =
  | { readonly kind: 'plumbing' }
  /** One entry per `tools/call` in the body (a batch may repeat a tool). */
  | { readonly kind: 'tool_call'; readonly toolNames: readonly string[] }
  | { readonly kind: 'unclassifiable'; readonly reason: string };

/** JSON-RPC methods that only move protocol state and never act on the user's behalf. */
export const plumbingMethods: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'tools/list',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
]);

/** Deeper JSON than this is refused unread: no MCP message needs it, and parsing it costs stack. */
export const maxJsonRpcDepth = 64;

function isPlumbing(method: string): boolean {
  return plumbingMethods.has(method) || method.startsWith('notifications/');
}

function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92) index += 1;
      else if (char === 34) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 123 || char === 91) {
      depth += 1;
      if (depth > maxJsonRpcDepth) return true;
    } else if (char === 125 || char === 93) depth -= 1;
  }
  return false;
}

/**
 * Classifies an MCP request. A bodyless GET (the SSE stream) or DELETE (session end) is plumbing; a POST whose
 * JSON-RPC message (or non-empty batch) uses only plumbing methods is plumbing; `tools/call` with a non-empty
 * string `params.name` is a tool call; everything else, malformed or overly deep JSON included, is unclassifiable.
 * Responses the client posts back (no `method`, with `result` or `error`) are plumbing.
 */
export function classifyJsonRpcBody(method: string, body: Uint8Array | undefined): JsonRpcBodyClass {
  const upper = method.toUpperCase();
  const empty = body === undefined || body.length === 0;
  if ((upper === 'GET' || upper === 'DELETE') && empty) return { kind: 'plumbing' };
  if (upper !== 'POST') return { kind: 'unclassifiable', reason: `${upper} with a body` };
  if (empty) return { kind: 'unclassifiable', reason: 'empty POST' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return { kind: 'unclassifiable', reason: 'body is not UTF-8' };
  }
  if (tooDeep(text)) return { kind: 'unclassifiable', reason: 'JSON nested too deeply' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'unclassifiable', reason: 'body is not JSON' };
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  if (messages.length === 0) return { kind: 'unclassifiable', reason: 'empty batch' };
  const toolNames: string[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return { kind: 'unclassifiable', reason: 'batch entry is not an object' };
    }
    const record = message as Record<string, unknown>;
    const rpcMethod = record.method;
    if (rpcMethod === undefined && ('result' in record || 'error' in record)) continue;
    if (typeof rpcMethod !== 'string') return { kind: 'unclassifiable', reason: 'no method' };
    if (isPlumbing(rpcMethod)) continue;
    if (rpcMethod === 'tools/call') {
      const params = record.params;
      const name =
        typeof params === 'object' && params !== null ? (params as Record<string, unknown>).name : undefined;
      if (typeof name !== 'string' || name === '') {
        return { kind: 'unclassifiable', reason: 'tools/call without a tool name' };
      }
      toolNames.push(name);
      continue;
    }
    return { kind: 'unclassifiable', reason: 'unknown method' };
  }
  return toolNames.length === 0 ? { kind: 'plumbing' } : { kind: 'tool_call', toolNames };
}
