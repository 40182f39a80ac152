import { consoleWarningLogger, type WarningLogger } from '@toolbus/spec';

/** Where the MCP client reports security-relevant events. Only names are ever passed, never secret values. */
export type McpLogger = WarningLogger;

/** The default logger: `console.warn` with the fields as JSON. */
export const consoleMcpLogger: McpLogger = consoleWarningLogger;
