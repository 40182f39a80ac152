import type {
  ElicitationQuestion,
  McpCallRelay,
  Tool,
  ToolCall,
  ToolDefinition,
  ToolResponse,
  ToolRunContext,
} from '@toolbus/spec';
import {
  omitUndefined,
  sanitizeToolName,
  ToolbusError,
  ToolCallError,
  ToolExecutionError,
} from '@toolbus/spec';
import {
  type ConvertedToolResult,
  convertCallToolResult,
  type McpContentBlock,
} from './convert-call-tool-result.ts';
import { disambiguatedMcpToolName } from './disambiguated-mcp-tool-name.ts';
import { McpAuthorizationRequiredError } from './errors/mcp-authorization-required-error.ts';
import { McpConnectionError } from './errors/mcp-connection-error.ts';
import { isMcpSdkError } from './load-mcp-client-sdk.ts';
import type { McpCallLogListener } from './mcp-call-logs.ts';
import type { McpElicitationHandler } from './mcp-elicitation.ts';
import type { McpFileStore } from './mcp-file-store.ts';
import { describeMcpProgress, type McpProgressListener } from './mcp-progress.ts';
import type { McpToolDescriptor } from './mcp-tool-descriptor.ts';
import { providerInputSchema } from './provider-input-schema.ts';

/** A `tools/call` result as the SDK returns it. */
export interface McpCallToolResult {
  readonly content?: readonly McpContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** Sends `tools/call` for the server's own tool name. */
export type McpToolCaller = (options: {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  readonly onProgress?: McpProgressListener | undefined;
  readonly onElicitation?: McpElicitationHandler | undefined;
  readonly logs?: McpCallLogListener | undefined;
}) => Promise<McpCallToolResult>;

/** A toolbus {@link Tool} backed by one MCP server tool. */
export interface McpTool extends Tool {
  readonly serverId: string;
  readonly serverName: string;
  /** The server's own tool name (what `tools/call` sends, whatever `name` the model sees). */
  readonly mcpToolName: string;
  /** `mcp_{server}_{tool}`, sanitised: the name to use when two tools of an assembly collide. */
  readonly disambiguatedName: string;
  /** {@link toolDefinitionHash} of the descriptor, for drift detection against the approved hash. */
  readonly definitionHash: string;
  /** The server's own schema is {@link McpTool.descriptor}'s; this is set when no provider would accept it. */
  readonly descriptor: McpToolDescriptor;
  /**
   * Why the tool cannot be offered to a model (its input schema could not be made into one providers accept):
   * the assembly sets such a tool aside with this reason instead of letting it fail the whole request.
   */
  readonly inputSchemaProblem?: string | undefined;
  /** The same tool under another LLM-facing name (the assembly passes `disambiguatedName` on collision). */
  withName(name: string): McpTool;
}

/** Options for {@link createMcpTool}. */
export interface CreateMcpToolOptions {
  readonly descriptor: McpToolDescriptor;
  readonly serverId: string;
  readonly serverName: string;
  readonly definitionHash: string;
  readonly call: McpToolCaller;
  readonly fileStore?: McpFileStore | undefined;
  /** Cap on the model string (see `convertCallToolResult`). */
  readonly maxResultChars?: number | undefined;
  /** LLM-facing name; the sanitised MCP name by default. */
  readonly name?: string;
}

/**
 * Wraps an MCP tool as a toolbus tool. `isError: true` results are failures (a {@link ToolCallError} whose model
 * message is the server's text), never successes; protocol and transport failures are {@link ToolExecutionError}s.
 */
export function createMcpTool(options: CreateMcpToolOptions): McpTool {
  const { descriptor } = options;
  const name = options.name ?? sanitizeToolName(descriptor.name);
  const prepared = providerInputSchema(descriptor.inputSchema);
  // A tool whose schema is set aside is never offered; its definition stays a harmless empty object.
  const parameters = prepared.ok ? prepared.schema : { type: 'object', properties: {} };
  const displayName = descriptor.title ?? descriptor.annotations?.title ?? descriptor.name;
  const label = `MCP tool "${descriptor.name}" on server "${options.serverName}"`;
  return {
    name,
    description: descriptor.description,
    displayName,
    streamsArgumentDeltas: false,
    // Only tools the server declares read-only may run side by side; anything else may write.
    concurrency: descriptor.annotations?.readOnlyHint === true ? 'parallel' : 'serial',
    serverId: options.serverId,
    serverName: options.serverName,
    mcpToolName: descriptor.name,
    disambiguatedName: disambiguatedMcpToolName({
      serverName: options.serverName,
      toolName: descriptor.name,
    }),
    definitionHash: options.definitionHash,
    descriptor,
    ...omitUndefined({ inputSchemaProblem: prepared.ok ? undefined : prepared.reason }),
    withName: (newName) => createMcpTool({ ...options, name: sanitizeToolName(newName) }),
    definition(): ToolDefinition {
      return { name, description: descriptor.description, parameters };
    },
    isAvailable: () => true,
    emitStart(_placement, emitter, call: ToolCall) {
      emitter.emit({
        type: 'tool-start',
        toolCallId: call.id,
        toolName: name,
        displayName,
        arguments: call.arguments,
      });
    },
    async run(call: ToolCall, context: ToolRunContext): Promise<ToolResponse> {
      let result: McpCallToolResult;
      let lastProgress: string | undefined;
      const unanswered: string[] = [];
      const elicit = context.elicit;
      const relay = context.mcpRelay;
      try {
        result = await options.call({
          name: descriptor.name,
          arguments: call.arguments,
          signal: context.signal,
          ...omitUndefined({
            // Only a caller that speaks MCP asks for the server's log messages (the `/v1/mcp` endpoint's client).
            logs: relay?.logLevel && { level: relay.logLevel, onLog: relay.log.bind(relay) },
            onElicitation:
              elicit &&
              (async (question: ElicitationQuestion, signal: AbortSignal) => {
                const answer = await elicit(question, {
                  toolCallId: call.id,
                  signal: AbortSignal.any([signal, context.signal]),
                });
                if (answer.action === 'cancel' && answer.expired === true) unanswered.push(question.message);
                return answer;
              }),
          }),
          onProgress: (progress) => {
            const message = describeMcpProgress(progress);
            // Only a changed line is worth a packet: a chatty server must not flood the stream.
            if (message === lastProgress) return;
            lastProgress = message;
            context.emitter.emit(
              omitUndefined({
                type: 'tool-progress' as const,
                toolCallId: call.id,
                message,
                progress: progress.progress,
                total: progress.total,
              }),
            );
          },
        });
      } catch (error) {
        // Cancelled or timed out by the runner: the SDK already told the server (notifications/cancelled); the
        // runner owns the outcome, so the abort reason goes back as is.
        if (context.signal.aborted) throw context.signal.reason ?? error;
        if (McpAuthorizationRequiredError.isInstance(error)) {
          // The application finds the authorization URL on `cause`; the UI shows the user a reconnect prompt.
          throw new ToolExecutionError({
            code: 'mcp_authorization_required',
            message: `${label} needs the user to reconnect to the server (authorization expired, revoked or insufficient)`,
            emitErrorPacket: true,
            cause: error,
          });
        }
        if (McpConnectionError.isInstance(error) && error.code === 'mcp_authentication_required') {
          throw new ToolExecutionError({
            code: 'mcp_authentication_required',
            message: `${label} needs the user to connect to the server again with their credentials (the server refused them)`,
            emitErrorPacket: true,
            cause: error,
          });
        }
        if (ToolbusError.isInstance(error)) throw error;
        const unauthorized = isMcpSdkError(error, 'UnauthorizedError');
        throw new ToolExecutionError({
          code: unauthorized ? 'mcp_authorization_required' : 'mcp_protocol_error',
          message: unauthorized
            ? `${label} needs the user to reconnect (OAuth authorization expired or was revoked)`
            : `${label} failed: ${error instanceof Error ? withCodeOnce(error.message) : String(error)}`,
          cause: error,
        });
      }
      if (relay !== undefined) relayResult(relay, result);
      if (result.isError === true) {
        const text = (result.content ?? [])
          .filter((block) => block.type === 'text' && typeof block.text === 'string')
          .map((block) => block.text as string)
          .join('\n\n');
        const modelMessage = text.length > 0 ? text : `The tool ${name} reported an error without details.`;
        throw new ToolCallError({
          code: 'mcp_tool_error',
          message: `${label} returned an error result: ${text}`,
          modelMessage: `${unansweredNote(unanswered)}${modelMessage}`,
        });
      }
      const converted = withUnansweredNote(
        await convertCallToolResult({
          content: result.content ?? [],
          structuredContent: result.structuredContent,
          fileStore: options.fileStore,
          maxResultChars: options.maxResultChars,
        }),
        unanswered,
      );
      context.emitter.emit({
        type: 'custom-tool-delta',
        toolCallId: call.id,
        toolName: name,
        responseType: converted.rich.responseType,
        data: converted.rich.data,
        files: converted.rich.files,
      });
      return converted;
    },
  };
}

/** The caller that speaks MCP gets the server's own content (images, audio, resources), not the model's text. */
function relayResult(relay: McpCallRelay, result: McpCallToolResult): void {
  relay.result(
    omitUndefined({
      content: result.content ?? [],
      structuredContent: result.structuredContent,
      isError: result.isError,
    }),
  );
}

/**
 * Says, before the server's own words, that a question it asked the user went unanswered in time: the server only
 * learns `cancel`, and the model should neither retry at once nor take the result for the user's choice.
 */
function unansweredNote(unanswered: readonly string[]): string {
  if (unanswered.length === 0) return '';
  const asked = unanswered.map((message) => `"${message.slice(0, 200)}"`).join(', ');
  return `[The tool's server asked the user ${asked}, but the user did not answer in time, so the question was cancelled. Tell the user; do not call the tool again unless they ask.]\n\n`;
}

function withUnansweredNote(
  converted: ConvertedToolResult,
  unanswered: readonly string[],
): ConvertedToolResult {
  const note = unansweredNote(unanswered);
  return note === '' ? converted : { ...converted, llmFacing: `${note}${converted.llmFacing}` };
}

/**
 * An SDK server sends an McpError's message with its "MCP error <code>: " prefix already on, and the client's SDK
 * prefixes the message it receives again: the code is said once.
 */
function withCodeOnce(message: string): string {
  return message.replace(/^(MCP error (-?\d+): )(?:MCP error \2: )+/, '$1');
}
