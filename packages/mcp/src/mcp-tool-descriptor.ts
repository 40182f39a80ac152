import type { JsonSchema } from '@toolbus/spec';

/** A tool as the MCP server lists it (`tools/list`), kept close to the wire form. */
export interface McpToolDescriptor {
  /** The server's own name for the tool; always what `tools/call` sends. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: {
    readonly title?: string;
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint?: boolean;
  };
}
