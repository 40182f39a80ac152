// The `book_table` tool of the elicitation tests, on a loopback MCP server: mid-call it asks the user who the
// booking is for (a form elicitation), records the answer it received, and returns it to the model.
import type { LoopbackTool } from '@toolbus/mcp/testing';

export function bookTableTool(options: {
  /** The form's schema (what toolbus checks the user's answer against and completes with defaults). */
  readonly requestedSchema: Record<string, unknown>;
  /** Where each answer the tool received is pushed, in order. */
  readonly saw: unknown[];
}): LoopbackTool {
  return {
    tool: { name: 'book_table', description: 'Books a table', inputSchema: { type: 'object' } },
    call: async (_args, context) => {
      const answer = await context.elicit({
        mode: 'form',
        message: 'Who is the booking for?',
        requestedSchema: options.requestedSchema,
      });
      options.saw.push(answer);
      return { content: [{ type: 'text', text: `booking: ${JSON.stringify(answer)}` }] };
    },
  };
}
