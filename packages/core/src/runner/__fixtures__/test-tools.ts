// Test support for the runner: the tools its tests run to see how it treats a failure or an abort.
import type { Tool, ToolRunContext } from '@toolbus/spec';
import * as z from 'zod';
import { defineTool } from '../../tool/define-tool.ts';

/** A tool without parameters that throws what `thrown` returns (an error of any kind, a string, undefined). */
export function throwingTool(name: string, thrown: () => unknown): Tool {
  return defineTool({
    name,
    description: name,
    parameters: z.object({}),
    run: () => {
      throw thrown();
    },
  });
}

/**
 * A tool that never finishes by itself: it settles only when its call's signal aborts, rejecting with the abort
 * reason. `onStart` sees the call's context as it starts (to keep its signal, or to note the abort).
 */
export function abortAwaitingTool(name: string, onStart: (context: ToolRunContext) => void = () => {}): Tool {
  return defineTool({
    name,
    description: `${name}: waits until aborted`,
    parameters: z.object({}),
    run: (_args, context) =>
      new Promise((_resolve, reject) => {
        onStart(context);
        context.signal.addEventListener('abort', () => reject(context.signal.reason));
      }),
  });
}
