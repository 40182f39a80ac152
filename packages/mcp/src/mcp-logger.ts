/** Where the MCP client reports security-relevant events. Only names are ever passed, never secret values. */
export interface McpLogger {
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** The default logger: `console.warn` with the fields as JSON. */
export const consoleMcpLogger: McpLogger = {
  warn(message, fields) {
    console.warn(fields === undefined ? message : `${message} ${JSON.stringify(fields)}`);
  },
};
