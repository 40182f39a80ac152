import type { ChatMessage, CitedDocument, Tool, ToolCall, ToolResponse } from '@toolbus/spec';
import type { RecordedResponse } from './call-run.ts';
import type { RunToolCallsResult, ToolCallOutcome } from './tool-call-outcome.ts';
import type { ToolCallStatus } from './tool-run-hooks.ts';

/** Statuses of a call whose input never reached its tool: calls merged into it share its answer instead. */
const notRunStatuses: ReadonlySet<ToolCallStatus> = new Set(['over-cap', 'unknown-tool', 'aborted']);

/**
 * One outcome and one tool message per model call id, in call order. A merged call points at its carrier when
 * the carrier ran; when the carrier never ran (over the cap, cancelled first), the merged call is answered as the
 * carrier was, since its input did not run either.
 */
export function collectToolCallResults(input: {
  calls: readonly ToolCall[];
  responses: Map<string, RecordedResponse>;
  mergedInto: ReadonlyMap<string, string>;
  citations: Map<number, CitedDocument>;
  toolsByName: ReadonlyMap<string, Pick<Tool, 'stopsTurn'>>;
}): RunToolCallsResult {
  const outcomes: ToolCallOutcome[] = [];
  const messages: ChatMessage[] = [];
  let stopped = false;
  for (const call of input.calls) {
    const target = input.mergedInto.get(call.id);
    let outcome: ToolCallOutcome;
    const carrier = target === undefined ? undefined : input.responses.get(target);
    if (target !== undefined && carrier !== undefined && !notRunStatuses.has(carrier.status)) {
      const response: ToolResponse = {
        llmFacing: `This call was merged into call ${target} (same tool, combined arguments); its results are reported there.`,
        rich: { type: 'merged', intoCallId: target },
      };
      outcome = carrier.ranAs
        ? { call, ranAs: carrier.ranAs, status: 'merged', response }
        : { call, status: 'merged', response };
    } else {
      const recorded = carrier ?? (input.responses.get(call.id) as RecordedResponse);
      outcome = { call, status: recorded.status, response: recorded.response };
      if (carrier === undefined && recorded.ranAs) outcome = { ...outcome, ranAs: recorded.ranAs };
      if (recorded.status === 'success' && input.toolsByName.get(call.name)?.stopsTurn === true)
        stopped = true;
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
