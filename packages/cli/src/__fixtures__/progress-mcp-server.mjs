// A real 2025-11-25 MCP server over stdio (the 1.x SDK's own Server) with two long tools: `crunch` works for
// MCP_STEPS steps (60) of MCP_STEP_MS each (200) and reports progress after every one (when the client sent a progress
// token); `silent` works as long and says nothing.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const steps = Number(process.env.MCP_STEPS ?? 60);
const stepMs = Number(process.env.MCP_STEP_MS ?? 200);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const server = new Server({ name: 'progress', version: '1.0.0' }, { capabilities: { tools: {} } });
const tool = (name, description) => ({ name, description, inputSchema: { type: 'object', properties: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [tool('crunch', 'Works for a long time, reporting progress.'), tool('silent', 'Works as long, silently.')],
}));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const token = request.params._meta?.progressToken;
  for (let step = 1; step <= steps; step += 1) {
    await sleep(stepMs);
    if (request.params.name === 'crunch' && token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: step, total: steps, message: 'crunching' },
      });
    }
  }
  return { content: [{ type: 'text', text: request.params.name === 'crunch' ? 'finished' : 'too late' }] };
});
await server.connect(new StdioServerTransport());
