/** MCP's log levels (RFC 5424's syslog severities), least severe first. */
export const mcpLogLevels = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** One of {@link mcpLogLevels}. */
export type McpLogLevel = (typeof mcpLogLevels)[number];

/** A log message a tool sent while it ran (an MCP server's `notifications/message`): untrusted data. */
export interface McpLogMessage {
  readonly level: McpLogLevel;
  readonly data: unknown;
  readonly logger?: string | undefined;
}

/** A tool's result as MCP content (text, image, audio, resource…), as the tool's own MCP server answered it. */
export interface McpResultContent {
  readonly content: readonly { readonly type: string; readonly [key: string]: unknown }[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean | undefined;
}

/**
 * Given to a call whose caller speaks MCP (the `/v1/mcp/…` endpoint): what of the tool's own MCP traffic it wants
 * passed on, beyond the model-facing text. A chat turn gives none, so a tool keeps nothing extra for it.
 */
export interface McpCallRelay {
  /** The least severe log level the caller wants; none: it wants no log messages. */
  readonly logLevel?: McpLogLevel | undefined;
  /** Receives the tool's log messages at or above {@link logLevel}. */
  log(message: McpLogMessage): void;
  /** Receives the tool's result as its MCP server gave it (images, audio and resources intact). */
  result(result: McpResultContent): void;
}

/** True when `level` is one of {@link mcpLogLevels}. */
export function isMcpLogLevel(level: unknown): level is McpLogLevel {
  return typeof level === 'string' && (mcpLogLevels as readonly string[]).includes(level);
}

/** True when a message at `level` passes a `threshold` (a message at the threshold or more severe). */
export function mcpLogLevelPasses(level: McpLogLevel, threshold: McpLogLevel): boolean {
  return mcpLogLevels.indexOf(level) >= mcpLogLevels.indexOf(threshold);
}
