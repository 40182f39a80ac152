import { defineTool } from '@toolbus/core';
import { omitUndefined, type Tool, type ToolRunContext } from '@toolbus/spec';
import * as z from 'zod';
import { RESEARCH_AGENT_TOOL_NAME } from './research-tools.ts';
import type { ResearchAgentReport } from './run-research-agent.ts';

/** Options for {@link createResearchAgentTool}. */
export interface ResearchAgentToolOptions {
  /** Runs one agent; must stop when the signal aborts. */
  readonly run: (task: string, context: ToolRunContext, signal: AbortSignal) => Promise<ResearchAgentReport>;
  /** Past this the agent is aborted and answers with a "timed out" report. */
  readonly timeoutMs: number;
  /** Every agent's report, by the call id that dispatched it. */
  readonly reports: Map<string, ResearchAgentReport>;
  /** At most this many agents run per cycle; later calls are answered without running. */
  readonly maxParallel?: number;
  /**
   * What the orchestrator reads of a report (its citations renumbered into the run's one numbering). Called in
   * dispatch order: an agent that finishes first waits for those dispatched before it. Default: the report.
   */
  readonly present?: (report: ResearchAgentReport) => string;
}

/** The report an aborted agent answers with. */
export function timedOutReportText(timeoutMs: number): string {
  const minutes = timeoutMs / 60_000;
  const span =
    minutes >= 1 ? `${Number(minutes.toFixed(1))} minutes` : `${Math.round(timeoutMs / 1000)} seconds`;
  return `Research agent timed out after ${span}; it returned no findings.`;
}

/**
 * `research_agent`: the orchestrator's tool. Each call runs one agent at the call's placement (its
 * `research-agent-start` opens the tab). An agent past its timeout is aborted (its model call and tools stop, its
 * packets are fenced) and answers with a synthetic "timed out" report, so the run still ends with a report.
 */
export function createResearchAgentTool(options: ResearchAgentToolOptions): Tool {
  // The agent dispatched last: the next one presents its report only after it (dispatch order).
  let dispatched: Promise<void> = Promise.resolve();
  return defineTool({
    name: RESEARCH_AGENT_TOOL_NAME,
    displayName: 'Research Agent',
    description:
      'Conduct research on a specific topic. The task is 1-2 descriptive sentences with all the context the ' +
      'agent needs: it sees nothing else.',
    parameters: z.object({ task: z.string().min(1).describe('What to research, with full context') }),
    // The runner's deadline is a backstop behind the agent's own timer, which answers with a report.
    timeoutMs: options.timeoutMs + 5_000,
    ...omitUndefined({ maxCallsPerCycle: options.maxParallel }),
    emitStart: (_placement, emitter, call) =>
      emitter.emit({ type: 'research-agent-start', task: String(call.arguments.task ?? '') }),
    async run({ task }, context) {
      const before = dispatched;
      let presented!: () => void;
      dispatched = new Promise<void>((resolve) => {
        presented = resolve;
      });
      const controller = new AbortController();
      const abort = () => controller.abort(context.signal.reason);
      context.signal.addEventListener('abort', abort, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<ResearchAgentReport>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new Error('research agent timed out'));
          const report = timedOutReportText(options.timeoutMs);
          // The agent's own packets are fenced by now; the synthetic report goes out at its tab.
          context.emitter.emit({ type: 'intermediate-report-start' });
          context.emitter.emit({ type: 'intermediate-report-delta', content: report });
          context.emitter.emit({ type: 'intermediate-report-cited-documents', documents: [] });
          resolve({ task, report, citedDocuments: new Map(), status: 'timed-out', cycles: 0 });
        }, options.timeoutMs);
      });
      try {
        const running = options.run(task, context, controller.signal);
        running.catch(() => undefined);
        const report = await Promise.race([running, timedOut]);
        await before;
        options.reports.set(context.call.id, report);
        return options.present ? options.present(report) : report.report;
      } finally {
        presented();
        clearTimeout(timer);
        context.signal.removeEventListener('abort', abort);
      }
    },
  });
}
