// `toolbus/mcp`: the whole of @toolbus/mcp (OAuth, token stores, header rules, result conversion) for users who
// go beyond `connectMcpServer`, which the package root exports.
export * from '@toolbus/mcp';
