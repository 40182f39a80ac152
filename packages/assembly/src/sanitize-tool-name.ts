/**
 * Makes a name valid for every LLM provider (`^[a-zA-Z0-9_-]{1,64}$`): other characters become `_`, and a name
 * that must be cut keeps a short hash of the whole. One implementation for the whole bus (the MCP client's).
 */
export { sanitizeToolName } from '@toolbus/mcp';
