import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { type PacketSink, runToolCalls } from '@toolbus/core';
import {
  isMcpLogLevel,
  type McpCallRelay,
  type McpLogLevel,
  type McpResultContent,
  omitUndefined,
  type Tool,
} from '@toolbus/spec';

/** The envelope key naming the least severe log level a 2026-07-28 request wants (none: no logs). */
const logLevelMetaKey = 'io.modelcontextprotocol/logLevel';
/**
 * A 2025-11-25 client sets its level with `logging/setLevel`, but a stateless endpoint keeps nothing between
 * requests, so each call of that revision gets this level: what a server decides when no level was set.
 */
const legacyLogLevel: McpLogLevel = 'info';

/** One `tools/call` to the endpoint, as the SDK hands it over. */
export interface McpEndpointToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly tools: readonly Tool[];
  readonly userId: string;
  readonly context: ServerContext;
}

/**
 * Runs one call of the endpoint through the tool runner and answers it as MCP: the tool's own MCP content where it
 * has some (images, audio, resources stay what they are), else its model-facing text; its progress as
 * `notifications/progress` when the request carried a progress token; its server's log messages as
 * `notifications/message` at the level the caller asked for. A failure is an `isError` result.
 */
export async function answerMcpToolCall(call: McpEndpointToolCall): Promise<CallToolResult> {
  const request = call.context.mcpReq;
  let original: McpResultContent | undefined;
  const relay: McpCallRelay = {
    logLevel: requestedLogLevel(call.context),
    log: (message) => {
      // The SDK filters again by the level the request set, and sends nothing for a revision without one.
      request.log(message.level, message.data, message.logger).catch(() => undefined);
    },
    result: (result) => {
      original = result;
    },
  };
  const { outcomes } = await runToolCalls({
    calls: [
      {
        id: call.id,
        name: call.name,
        arguments: call.arguments as Record<string, unknown>,
        placement: { turn: 0, tab: 0 },
      },
    ],
    tools: call.tools,
    userId: call.userId,
    signal: request.signal,
    mcpRelay: relay,
    emitter: progressRelay(call.context),
  });
  const outcome = outcomes[0];
  const failed = outcome?.status !== 'success';
  // A failed call answers with the tool's own error content when its server gave one, else what the model read.
  if (original !== undefined && original.content.length > 0 && failed === (original.isError === true)) {
    return omitUndefined({
      content: original.content as CallToolResult['content'],
      structuredContent: original.structuredContent as Record<string, unknown> | undefined,
      isError: failed,
    });
  }
  return { content: [{ type: 'text', text: outcome?.response.llmFacing ?? '' }], isError: failed };
}

/** The least severe level the caller wants: the 2026-07-28 envelope's, or the stateless default before it. */
function requestedLogLevel(context: ServerContext): McpLogLevel | undefined {
  const envelope = context.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  if (envelope === undefined) return legacyLogLevel;
  const level = envelope[logLevelMetaKey];
  return isMcpLogLevel(level) ? level : undefined;
}

/**
 * Where the call's packets go: its `tool-progress` packets become `notifications/progress` for the request's
 * progress token (none: nothing is sent). Progress must grow with each notification, so a packet without a larger
 * number counts one step on from the last.
 */
function progressRelay(context: ServerContext): PacketSink | undefined {
  const token = context.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = 0;
  let sent = false;
  return {
    emitAt(_placement, packet) {
      if (packet.type !== 'tool-progress') return;
      const progress =
        packet.progress !== undefined && (!sent || packet.progress > last) ? packet.progress : last + 1;
      last = progress;
      sent = true;
      context.mcpReq
        .notify({
          method: 'notifications/progress',
          params: omitUndefined({
            progressToken: token,
            progress,
            total: packet.total,
            message: packet.message,
          }),
        })
        .catch(() => undefined);
    },
  };
}
