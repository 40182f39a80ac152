import type { ChatMessage, CitedDocument, ToolCall, ToolResponse } from '@toolbus/spec';
import type { RecordedResponse } from './call-run.ts';
import type { RunToolCallsResult, ToolCallOutcome } from './run-tool-calls.ts';

/** One outcome and one tool message per model call id, in call order; merged calls point at their carrier. */
export function collectToolCallResults(input: {
  calls: readonly ToolCall[];
  responses: Map<string, RecordedResponse>;
  mergedInto: ReadonlyMap<string, string>;
  citations: Map<number, CitedDocument>;
  stoppingTools: ReadonlySet<string>;
}): RunToolCallsResult {
  const outcomes: ToolCallOutcome[] = [];
  const messages: ChatMessage[] = [];
  let stopped = false;
  for (const call of input.calls) {
    const target = input.mergedInto.get(call.id);
    let outcome: ToolCallOutcome;
    if (target !== undefined) {
      const ran = input.responses.get(target);
      const response: ToolResponse = {
        llmFacing: `This call was merged into call ${target} (same tool, combined arguments); its results are reported there.`,
        rich: { type: 'merged', intoCallId: target },
      };
      outcome = ran?.ranAs
        ? { call, ranAs: ran.ranAs, status: 'merged', response }
        : { call, status: 'merged', response };
    } else {
      const recorded = input.responses.get(call.id) as RecordedResponse;
      outcome = recorded.ranAs
        ? { call, ranAs: recorded.ranAs, status: recorded.status, response: recorded.response }
        : { call, status: recorded.status, response: recorded.response };
      if (recorded.status === 'success' && input.stoppingTools.has(call.name)) stopped = true;
    }
    outcomes.push(outcome);
    messages.push({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: outcome.response.llmFacing,
    });
  }
  const citations = new Map([...input.citations].sort((left, right) => left[0] - right[0]));
  return { outcomes, messages, citations, stopped };
}
