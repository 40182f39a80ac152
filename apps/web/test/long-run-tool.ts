// A test tool for very long turns: an agent that runs thousands of steps, one small tool call each (about three
// packets a step), then reports. What the virtualised levels of the web UI are tested with.
import { defineTool } from '@toolbus/core';
import { z } from 'zod';

export const longRunTool = defineTool({
  name: 'long_run',
  displayName: 'Long run',
  description: 'Runs many small steps of its own, one tool call each, then reports.',
  parameters: z.object({ steps: z.number().int() }),
  emitStart: (_placement, emitter, call) => {
    emitter.emit({ type: 'tool-start', toolCallId: call.id, toolName: 'long_run', displayName: 'Long run' });
    emitter.emit({ type: 'research-agent-start', task: `long run ${call.id}` });
  },
  run: async ({ steps }, context) => {
    const id = context.call.id;
    for (let step = 0; step < steps; step += 1) {
      const at = context.emitter.nested({ turn: step, tab: 0 });
      const toolCallId = `${id}-${step}`;
      at.emit({ type: 'tool-start', toolCallId, toolName: 'run_python', displayName: 'Code' });
      at.emit({ type: 'python-delta', toolCallId, stdout: `long step ${step} done\n` });
      at.emit({ type: 'section-end' });
      // Let the stream breathe, as a real agent's steps would.
      if (step % 200 === 199) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    context.emitter.emit({ type: 'intermediate-report-start' });
    context.emitter.emit({ type: 'intermediate-report-delta', content: `Long run ${id}: ${steps} steps.` });
    return `ran ${steps} steps`;
  },
});
