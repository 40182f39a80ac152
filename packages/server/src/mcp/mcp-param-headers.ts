import { isPlainObject, type Tool } from '@toolbus/spec';
import { mcpListedTool } from './mcp-listed-tool.ts';

/** JSON-RPC's code for headers that disagree with the body (2026-07-28, SEP-2243). */
const headerMismatchCode = -32020;
const protocolVersionMetaKey = 'io.modelcontextprotocol/protocolVersion';
const base64Prefix = '=?base64?';
const base64Suffix = '?=';
const canonicalBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const canonicalDecimal = /^-?\d+(\.\d+)?$/;

/** One argument a tool's schema mirrors into an `Mcp-Param-{name}` header. */
interface ParamHeader {
  readonly path: readonly string[];
  readonly headerName: string;
  readonly type: unknown;
}

/**
 * The 400 answer to a 2026-07-28 `tools/call` whose `Mcp-Param-*` headers disagree with its arguments (SEP-2243),
 * or undefined when they agree or do not apply. A tool's schema names an argument's header with `x-mcp-header`
 * (its server's own schema, which the endpoint lists as it is); when the call carries that argument, the header
 * must be present and equal to it, literally or as `=?base64?…?=` (canonical Base64 of UTF-8). Intermediaries
 * route and filter on these headers, so a request whose headers say one thing and body another is refused. The
 * answer names the header and the argument, never their values.
 */
export function mcpParamHeaderRejection(input: {
  readonly body: unknown;
  readonly headers: Headers;
  readonly tools: readonly Tool[];
}): Response | undefined {
  const { body } = input;
  if (!isPlainObject(body) || body.method !== 'tools/call' || !isPlainObject(body.params)) return undefined;
  const params = body.params;
  // Only the 2026-07-28 revision defines the headers; an older client never sends them.
  if (!isPlainObject(params._meta) || params._meta[protocolVersionMetaKey] === undefined) return undefined;
  const tool = input.tools.find((candidate) => candidate.definition().name === params.name);
  if (tool === undefined) return undefined;
  for (const declared of paramHeadersOf(mcpListedTool(tool).inputSchema)) {
    const problem = mismatch(declared, valueAt(params.arguments, declared.path), input.headers);
    if (problem === undefined) continue;
    const header = `Mcp-Param-${declared.headerName}`;
    const message = `Bad Request: the ${header} header ${problem} the argument ${declared.path.join('.')}`;
    return Response.json(
      {
        jsonrpc: '2.0',
        id: typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null,
        error: {
          code: headerMismatchCode,
          message,
          data: { mismatch: { header, argument: declared.path.join('.') } },
        },
      },
      { status: 400 },
    );
  }
  return undefined;
}

/** What is wrong with the header for this argument value ("is missing for", …), or undefined when it matches. */
function mismatch(declared: ParamHeader, value: unknown, headers: Headers): string | undefined {
  if (value === undefined || value === null) return undefined;
  const expected = primitiveText(value);
  if (expected === undefined) return undefined;
  const raw = headers.get(`Mcp-Param-${declared.headerName}`);
  if (raw === null) return 'is missing for';
  const decoded = decodedValue(raw.trim());
  if (decoded === undefined) return 'is not canonical Base64 of UTF-8 text for';
  const numeric = declared.type === 'integer' || declared.type === 'number';
  const equal =
    numeric && typeof value === 'number' && canonicalDecimal.test(decoded)
      ? Number(decoded) === value
      : decoded === expected;
  return equal ? undefined : 'does not match';
}

/** The declarations reachable through `properties` alone (the only place SEP-2243 allows them). */
function paramHeadersOf(schema: unknown, path: readonly string[] = []): ParamHeader[] {
  if (!isPlainObject(schema)) return [];
  const found: ParamHeader[] = [];
  const headerName = schema['x-mcp-header'];
  if (path.length > 0 && typeof headerName === 'string' && headerName.length > 0) {
    found.push({ path, headerName, type: schema.type });
  }
  if (isPlainObject(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties))
      found.push(...paramHeadersOf(child, [...path, key]));
  }
  return found;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** An argument as header text: strings as they are, numbers in decimal, booleans as `true`/`false`. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A header value decoded: `=?base64?…?=` as UTF-8 (undefined when not canonical), anything else literally. */
function decodedValue(value: string): string | undefined {
  if (!(value.startsWith(base64Prefix) && value.endsWith(base64Suffix))) return value;
  const payload = value.slice(base64Prefix.length, value.length - base64Suffix.length);
  if (!canonicalBase64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}
