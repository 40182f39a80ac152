import { defineTool, runToolCalls, ToolExecutionError } from 'toolbus';
import * as z from 'zod';

const noArguments = z.object({});
const tools = [
  // A failure the tool knows how to word: the model reads the message (and the UI gets an error packet if asked).
  defineTool({
    name: 'orders',
    description: 'Lists orders',
    parameters: noArguments,
    run: () => {
      throw new ToolExecutionError({
        code: 'backend_unavailable',
        message: 'The order system is down; try later.',
      });
    },
  }),
  // A plain error: the model reads only that the tool stopped with an internal error (its text may hold secrets).
  defineTool({
    name: 'invoices',
    description: 'Lists invoices',
    parameters: noArguments,
    run: () => {
      throw new Error('GET https://billing.internal/v1?token=… returned 503');
    },
  }),
  // passErrorMessages: this tool's plain errors are written for the model, so it reads them as they are.
  defineTool({
    name: 'refunds',
    description: 'Lists refunds',
    parameters: noArguments,
    passErrorMessages: true,
    run: () => {
      throw new Error('backend returned 503');
    },
  }),
];
const calls = tools.map((tool, tab) => ({
  id: `call_${tab}`,
  name: tool.name,
  arguments: {},
  placement: { turn: 0, tab },
}));
const { outcomes } = await runToolCalls({ calls, tools });
for (const { call, status, response } of outcomes)
  console.log(`${call.name}: ${status} — ${response.llmFacing}`);
