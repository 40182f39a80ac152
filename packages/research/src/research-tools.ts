import { CITEABLE_TOOLS, defineTool } from '@toolbus/core';
import type { Tool } from '@toolbus/spec';
import * as z from 'zod';

/** The think tool's name: models without native reasoning think by calling it. */
export const THINK_TOOL_NAME = 'think_tool';
/** What every think call is answered with. */
export const THINK_TOOL_RESPONSE = 'Acknowledged, please continue.';
/** Ends the orchestrator's research (and an agent's): the report is written next. */
export const GENERATE_REPORT_TOOL_NAME = 'generate_report';
/** Offered by the clarification step: no questions needed. */
export const GENERATE_PLAN_TOOL_NAME = 'generate_plan';
/** Dispatches one research agent. */
export const RESEARCH_AGENT_TOOL_NAME = 'research_agent';

/**
 * The tools a research agent may use: the built-in citeable ones (internal_search, web_search, open_url).
 * Every other tool is dropped: agents gather sources, nothing else.
 */
export function researchToolsOf(tools: readonly Tool[]): Tool[] {
  return tools.filter((tool) => CITEABLE_TOOLS.has(tool.name));
}

/** `think_tool`: answered at once; its argument streams as reasoning (see runLlmStep's `reasoningTool`). */
export function createThinkTool(description: string): Tool {
  return defineTool({
    name: THINK_TOOL_NAME,
    description,
    parameters: z.object({ reasoning: z.string().describe('Your thinking, as a paragraph') }),
    // Not a tool section in the UI: its text already went out as reasoning.
    emitStart: () => undefined,
    run: () => THINK_TOOL_RESPONSE,
  });
}

/** `generate_report`: a stopping tool (it declares `stopsTurn`); the caller writes the report after it. */
export function createGenerateReportTool(description: string): Tool {
  return defineTool({
    name: GENERATE_REPORT_TOOL_NAME,
    description,
    parameters: z.object({}),
    stopsTurn: true,
    emitStart: () => undefined,
    run: () => 'Writing the report now.',
  });
}

/** `generate_plan`: offered by the clarification step; never run (the call itself is the answer). */
export function createGeneratePlanTool(): Tool {
  return defineTool({
    name: GENERATE_PLAN_TOOL_NAME,
    description: 'No clarification needed: generate a research plan for the question.',
    parameters: z.object({}),
    run: () => 'Planning.',
  });
}
